"""Argument handling shared by didax.numpy: array-like checks, dtype promotion (JAX's
lattice with weak types), rank promotion for broadcasting, and conversion of Python
scalars without staging an equation.

May import core, dtypes, config, array and didax.lax.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from didax._src import core, dtypes
from didax._src.array import Array
from didax._src.config import config
from didax._src.core import Tracer
from didax._src.lax import lax, shapes

_SCALAR_TYPES = (int, float, complex, bool)


def is_arraylike(x) -> bool:
    return isinstance(x, (Array, Tracer, np.ndarray, np.generic) + _SCALAR_TYPES) or \
        hasattr(x, "__jax_array__")


def check_arraylike(fun_name: str, *args: Any) -> None:
    for i, a in enumerate(args):
        if not is_arraylike(a):
            raise TypeError(f"{fun_name} requires ndarray or scalar arguments, got "
                            f"{type(a)} at position {i}.")


def _weak(x) -> bool:
    t = type(x)
    if t in (int, float, complex):
        return True
    return getattr(x, "weak_type", False) if isinstance(x, (Array, Tracer)) else False


def convert(x, dtype, weak_type: bool = False):
    """x as dtype (and weak_type). Concrete Python/NumPy values convert without staging."""
    dtype = np.dtype(dtype)
    t = type(x)
    if t in _SCALAR_TYPES:
        return core.typed_scalar(x, dtype, weak_type)
    if t is core.TypedScalar:
        return core.typed_scalar(x.val, dtype, weak_type)
    if t is np.ndarray or isinstance(x, np.generic):
        return np.asarray(x, dtype)
    aval = core.get_aval(x)
    if aval.dtype == dtype and aval.weak_type == weak_type:
        return x
    return lax.convert_element_type_p.bind(x, new_dtype=dtype, weak_type=weak_type,
                                           sharding=None)


def promote_dtypes(*args):
    """Converts args to their common dtype (JAX promotion; the result is weak only when
    every input is weak)."""
    if len(args) < 2:
        return list(args)
    dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    dtype = dtypes.canonicalize_dtype(dtype)
    return [convert(x, dtype, weak) for x in args]


def promote_dtypes_inexact(*args):
    dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    dtype = dtypes.canonicalize_dtype(dtypes.to_inexact_dtype(dtype))
    return [convert(x, dtype, weak) for x in args]


def promote_dtypes_numeric(*args):
    dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    dtype = dtypes.canonicalize_dtype(dtypes.to_numeric_dtype(dtype))
    return [convert(x, dtype, weak) for x in args]


def promote_dtypes_complex(*args):
    dtype, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    dtype = dtypes.canonicalize_dtype(dtypes.to_complex_dtype(dtype))
    return [convert(x, dtype, weak) for x in args]


def promote_shapes(fun_name: str, *args):
    """Rank promotion: non-scalar operands of lower rank get leading size-1 axes (scalars
    are left to lax's scalar broadcasting)."""
    if len(args) < 2:
        return list(args)
    shapes_ = [np.shape(a) for a in args]
    nonscalar_ranks = {len(s) for s in shapes_ if s}
    if len(nonscalar_ranks) < 2:
        return list(args)
    mode = config.jax_numpy_rank_promotion
    if mode != "allow":
        _rank_promotion_warning_or_error(fun_name, shapes_, mode)
    rank = max(nonscalar_ranks)
    _check_broadcastable(fun_name, shapes_)
    return [shapes.broadcast_to_rank(a, rank) if np.shape(a) else a for a in args]


def _check_broadcastable(fun_name, shapes_):
    try:
        np.broadcast_shapes(*shapes_)
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting: shapes="
                         f"{[tuple(s) for s in shapes_]}") from None


def _rank_promotion_warning_or_error(fun_name, shapes_, mode):
    msg = (f"Following NumPy automatic rank promotion for {fun_name} on shapes "
           f"{' '.join(map(str, shapes_))}. Set the jax_numpy_rank_promotion config option "
           "to 'allow' to disable this message; for more information, see "
           "https://docs.jax.dev/en/latest/rank_promotion_warning.html.")
    if mode == "warn":
        import warnings  # noqa: PLC0415

        warnings.warn(msg, stacklevel=4)
    else:
        raise ValueError("Operands could not be broadcast together with shapes "
                         f"{' '.join(map(str, shapes_))} and with the config option "
                         "jax_numpy_rank_promotion='raise'. For more information, see "
                         "https://docs.jax.dev/en/latest/rank_promotion_warning.html.")


def promote_args(fun_name: str, *args):
    check_arraylike(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes(*args))


def promote_args_inexact(fun_name: str, *args):
    check_arraylike(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes_inexact(*args))


def promote_args_numeric(fun_name: str, *args):
    check_arraylike(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes_numeric(*args))


def broadcast_arrays_shapes(*args) -> tuple[int, ...]:
    return tuple(np.broadcast_shapes(*[np.shape(a) for a in args]))


def broadcast_to(x, shape: Sequence[int]):
    shape = tuple(int(d) for d in shape)
    xs = np.shape(x)
    if xs == shape:
        return x
    nd = len(shape)
    if len(xs) > nd:
        raise ValueError(f"Cannot broadcast to shape with fewer dimensions: arr_shape={xs} "
                         f"shape={shape}")
    pad = nd - len(xs)
    for a, b in zip(xs, shape[pad:]):
        if a != b and a != 1:
            raise ValueError(f"Incompatible shapes for broadcasting: {xs} and requested "
                             f"shape {shape}")
    squeezed = [i for i, (a, b) in enumerate(zip(xs, shape[pad:])) if a == 1 and b != 1]
    if squeezed:
        x = shapes.reshape(x, tuple(d for i, d in enumerate(xs) if i not in squeezed))
        dims = tuple(i + pad for i in range(len(xs)) if i not in squeezed)
    else:
        dims = tuple(range(pad, nd))
    return shapes.broadcast_in_dim(x, shape, dims)
