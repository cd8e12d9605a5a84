"""`bitcast_convert_type`: reinterprets an array's bits as another dtype, declared once with
all its rules. A narrower target dtype appends a trailing axis (one element per piece); a
wider one consumes a trailing axis of exactly the right size.

May import core, dtypes, the interpreters, lax._define and lax._slicing_np.
"""

from __future__ import annotations

import numpy as np

from didax._src import dtypes
from didax._src.core import ShapedArray
from didax._src.interpreters import batching
from didax._src.lax._define import NONLINEAR, ZERO_JVP, def_primitive
from didax._src.lax._slicing_np import bitcast_shape


def _check_dtypes(old, new) -> None:
    def bool_or_complex(dt):
        return np.dtype(dt) == np.bool_ or dtypes.is_complex(dt)
    if (bool_or_complex(old) or bool_or_complex(new)) and np.dtype(old) != np.dtype(new):
        raise TypeError("lax.bitcast_convert_type does not support bool or complex values "
                        "unless the operand and destination types match. Got operand "
                        f"dtype={np.dtype(old)}, new_dtype={np.dtype(new)!r}. Consider using "
                        "the arr.view() method instead.")


def _abstract_eval(x, *, new_dtype):
    _check_dtypes(x.dtype, new_dtype)
    return ShapedArray(bitcast_shape(x.shape, x.dtype, new_dtype), new_dtype, False)


def _impl(x, *, new_dtype):
    new_dtype = np.dtype(new_dtype)
    shape = bitcast_shape(x.shape, x.dtype, new_dtype)
    x = np.ascontiguousarray(x)
    if x.dtype.itemsize >= new_dtype.itemsize:
        return x.view(new_dtype).reshape(shape)
    return x.reshape(shape + (-1,)).view(new_dtype).reshape(shape)


def _batch(axis_data, vals, dims, *, new_dtype):
    """The shape changes at the trailing axis, so the batch axis goes to the front."""
    (x,), (d,) = vals, dims
    x = batching.moveaxis(x, d, 0)
    return bitcast_convert_type_p.bind(x, new_dtype=new_dtype), 0


bitcast_convert_type_p = def_primitive(
    "bitcast_convert_type", abstract_eval=_abstract_eval, impl=_impl, jvp=ZERO_JVP,
    transpose=NONLINEAR, batch=_batch,
    lower=lambda ctx, x, *, new_dtype: ctx.fn.op1("stablehlo.bitcast_convert", [x],
                                                  ctx.avals_out[0]))


def bitcast_convert_type(operand, new_dtype):
    """Reinterprets operand's bits as new_dtype (see the module docstring for shapes)."""
    new_dtype = dtypes.canonicalize_dtype(np.dtype(new_dtype))
    return bitcast_convert_type_p.bind(operand, new_dtype=new_dtype)


__all__ = ["bitcast_convert_type", "bitcast_convert_type_p"]
