"""Array creation in didax.numpy: array/asarray (JAX's dtype inference for nested
sequences, weak types for bare Python scalars, tracers inside lists), zeros/ones/full/
empty and their *_like forms, arange, linspace/logspace/geomspace, eye/identity/tri,
fromfunction, copy.

May import core, dtypes, array, didax.lax and numpy.util.
"""

from __future__ import annotations

import array as pyarray
import builtins
import functools
import math
import operator
from typing import Any

import numpy as np

from didax._src import core, dtypes
from didax._src.array import Array
from didax._src.core import Tracer
from didax._src.lax import lax, shapes
from didax._src.numpy.util import (
    broadcast_shapes_checked,
    broadcast_to,
    check_arraylike,
    check_arraylike_or_none,
    convert,
    ensure_arraylike,
    jit_like_jax,
    to_array,
)


def canon_dtype(dtype, fun_name: str | None = None):
    """A user-given dtype= argument, validated and canonicalized (None stays None)."""
    if dtype is None:
        return None
    return dtypes.check_and_canonicalize_user_dtype(dtype, fun_name)


def canonicalize_shape(shape) -> tuple[int, ...]:
    """A concrete shape tuple (an int is a 1-D shape), with JAX's error otherwise."""
    try:
        if isinstance(shape, (int, np.integer)) or (np.ndim(shape) == 0 and not
                                                   isinstance(shape, (tuple, list))):
            return (operator.index(shape),)
        return tuple(operator.index(d) for d in shape)
    except TypeError:
        pass
    raise TypeError("Shapes must be 1D sequences of concrete values of integer type, "
                    f"got {tuple(shape) if isinstance(shape, (tuple, list)) else shape}.")


# ----------------------------------------------------------------------------------------
# array / asarray
# ----------------------------------------------------------------------------------------


def _flatten_nested(obj, leaves: list) -> None:
    if isinstance(obj, (list, tuple, range)):
        for o in obj:
            _flatten_nested(o, leaves)
    else:
        leaves.append(obj)


def _leaf(x):
    if isinstance(x, (pyarray.array, memoryview)):  # the buffer protocol, typed as NumPy reads it
        return np.asarray(x)
    m = getattr(x, "__jax_array__", None)
    return m() if m is not None and not isinstance(x, (Array, Tracer)) else x


def _stack_leaves(obj, dtype):
    """A nested list holding Arrays or tracers: stack them with lax (as JAX does)."""
    if not isinstance(obj, (list, tuple)):
        return convert(array(obj, dtype, copy=False), dtype)
    if not obj:
        return np.array([], dtype)
    parts = [shapes.expand_dims(to_array(_stack_leaves(o, dtype)), (0,)) for o in obj]
    if builtins.len({np.shape(p) for p in parts}) > 1:
        raise ValueError("setting an array element with a sequence. The requested array "
                         "has an inhomogeneous shape.")
    return shapes.concatenate(parts, 0)


def _check_overflow(obj, dtype) -> None:
    if type(obj) is int and dtype is not None and np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        if not info.min <= obj <= info.max:
            raise OverflowError(f"Python int {obj} too large to convert to {dtype}")
    elif type(obj) is int:
        core.get_aval(obj)  # raises OverflowError for out-of-range Python ints


def array(object: Any, dtype=None, copy: bool = True, order=None, ndmin: int = 0, *,
          device=None, out_sharding=None):
    """jnp.array: nested sequences, scalars and arrays (weakly typed only for a bare weak
    scalar or weak array, as in JAX)."""
    if order is not None and order != "K":
        raise NotImplementedError("Only implemented for order='K'")
    dtype = canon_dtype(dtype, "array")
    if isinstance(object, range):  # (a sequence of Python ints, as NumPy reads it)
        object = list(object)
    weak = dtype is None and dtypes.is_weakly_typed(object)
    if isinstance(object, (bool, int, float, complex)):
        _check_overflow(object, dtype)
    elif not isinstance(object, (Array, Tracer)):
        object = _leaf(object)
    leaves: list = []
    _flatten_nested(object, leaves)
    if builtins.any(lf is None for lf in leaves):
        raise ValueError("None is not a valid value for jnp.array")
    leaves = [_leaf(lf) for lf in leaves]
    if dtype is None:
        dtype = (dtypes.lattice_result_type(*leaves)[0] if leaves
                 else dtypes.default_float_dtype())
    dtype = dtypes.canonicalize_dtype(dtype)
    if type(object) is Array and copy:
        # a distinct Array with its own storage (donating or deleting one leaves the other)
        out = Array(np.array(np.asarray(object)), object.aval)
    elif isinstance(object, (Array, Tracer)):
        out = object
    elif builtins.any(isinstance(lf, (Array, Tracer)) for lf in leaves):
        out = _stack_leaves(object, dtype)
    else:
        val = _host_array(object, dtype)
        if not val.shape and core.trace_ctx.trace is not core.eval_trace:
            out = to_array(core.typed_scalar(val.item(), dtype, weak))  # a literal
        else:
            out = Array(val, core.ShapedArray(val.shape, dtype, weak))
    out = to_array(convert(out, dtype, weak))
    if ndmin > np.ndim(out):
        out = shapes.expand_dims(out, tuple(range(ndmin - np.ndim(out))))
    return out


def _host_array(obj, dtype):
    if isinstance(obj, core.TypedScalar):
        obj = obj.val
    try:
        val = np.asarray(obj, dtype=dtype)
    except OverflowError:
        raise
    except (ValueError, TypeError) as e:
        if isinstance(obj, (list, tuple)):
            raise ValueError(str(e)) from None
        raise TypeError(f"Unexpected input type for array: {type(obj)}") from None
    if val.dtype == object or val.dtype.kind in "USO":
        raise TypeError(f"Value '{obj}' with dtype {val.dtype} is not a valid JAX array "
                        "type. Only arrays of numeric types are supported by JAX.")
    if val is obj:  # Arrays are immutable: never alias the caller's NumPy buffer
        val = val.copy()
    return val


def asarray(a: Any, dtype=None, order=None, *, copy=None, device=None, out_sharding=None):
    """jnp.asarray: array(a, dtype) without forcing a copy."""
    if copy is False and isinstance(a, (Array, Tracer)) and dtype is not None and \
            canon_dtype(dtype) != a.aval.dtype:
        raise ValueError("jnp.asarray: cannot convert dtype without a copy")
    if isinstance(a, (Array, Tracer)) and dtype is None:
        return a
    return array(a, dtype=dtype, copy=builtins.bool(copy), order=order)


def copy(a, order=None):
    return array(ensure_arraylike("copy", a), copy=True, order=order)


# ----------------------------------------------------------------------------------------
# Filled arrays
# ----------------------------------------------------------------------------------------


def _full(shape, fill_value, dtype, weak=False):
    fill = convert(fill_value, dtype, weak) if not isinstance(fill_value, Tracer) else \
        convert(fill_value, dtype, weak)
    if not shape:
        return to_array(fill)
    return shapes.broadcast_in_dim(fill, shape, ())


def zeros(shape, dtype=None, *, device=None, out_sharding=None):
    shape = canonicalize_shape(shape)
    return _full(shape, 0, canon_dtype(dtype, "zeros") or dtypes.default_float_dtype())


def ones(shape, dtype=None, *, device=None, out_sharding=None):
    shape = canonicalize_shape(shape)
    return _full(shape, 1, canon_dtype(dtype, "ones") or dtypes.default_float_dtype())


def empty(shape, dtype=None, *, device=None, out_sharding=None):
    return zeros(shape, dtype)


def full(shape, fill_value, dtype=None, *, device=None):
    check_arraylike("full", fill_value)
    shape = canonicalize_shape(shape)
    dtype = canon_dtype(dtype, "full")
    if np.ndim(fill_value) == 0:
        if dtype is None:
            dt, weak = dtypes.lattice_result_type(fill_value)
            return _full(shape, fill_value, dtypes.canonicalize_dtype(dt), weak)
        return _full(shape, fill_value, dtype)
    fill = asarray(fill_value, dtype)
    return broadcast_to(fill, shape)


def _like_dtype(a, dtype):
    dtype = canon_dtype(dtype)
    aval = core.get_aval(a)
    if dtype is None:
        return aval.dtype, aval.weak_type
    return dtype, False


def _like(name, a, fill, dtype, shape):
    if not (hasattr(a, "dtype") or is_scalar_like(a)):
        raise TypeError(f"{name} requires ndarray or scalar arguments, got {type(a)} at "
                        "position 0.")
    dt, weak = _like_dtype(a, dtype)
    shp = np.shape(a) if shape is None else canonicalize_shape(shape)
    return _full(shp, fill, dt, weak)


def is_scalar_like(a) -> bool:
    return isinstance(a, (bool, int, float, complex, np.generic))


def zeros_like(a, dtype=None, shape=None, *, device=None, out_sharding=None):
    return _like("zeros_like", a, 0, dtype, shape)


def ones_like(a, dtype=None, shape=None, *, device=None, out_sharding=None):
    return _like("ones_like", a, 1, dtype, shape)


def empty_like(prototype, dtype=None, shape=None, *, device=None):
    return _like("empty_like", prototype, 0, dtype, shape)


def full_like(a, fill_value, dtype=None, shape=None, *, device=None):
    check_arraylike("full_like", a, fill_value)
    dt, weak = _like_dtype(a, dtype)
    shp = np.shape(a) if shape is None else canonicalize_shape(shape)
    if np.ndim(fill_value) == 0:
        return _full(shp, fill_value, dt, weak)
    return broadcast_to(asarray(fill_value, dt), shp)


# ----------------------------------------------------------------------------------------
# Ranges
# ----------------------------------------------------------------------------------------


def _concrete_scalar(x, name):
    if x is None:
        return None
    x = core.concrete_or_error(None, x, f"It arose in the jnp.arange argument '{name}'")
    if np.ndim(x) != 0:
        raise ValueError(f"jax.numpy.arange: arguments must be scalars; got {name}={x}")
    return x


def arange(start, stop=None, step=None, dtype=None, *, device=None, out_sharding=None):
    """Concrete bounds only (the length must be static), computed as JAX does: an iota,
    scaled by step and shifted by start."""
    dtype = canon_dtype(dtype, "arange")
    check_arraylike_or_none("arange", start, stop, step)
    start = _concrete_scalar(start, "stop" if stop is None and step is None else "start")
    stop, step = _concrete_scalar(stop, "stop"), _concrete_scalar(step, "step")
    if dtype is None:
        dtype = dtypes.canonicalize_dtype(dtypes.result_type(
            start, *(x for x in (stop, step) if x is not None)))
    if builtins.any(x is not None and dtypes.is_complex(dtypes.dtype(x))
                    for x in (start, stop, step)):
        raise ValueError("Passing complex start/stop/step to jnp.arange is no longer "
                         "supported starting in JAX v0.10.0.")
    if stop is None:
        start, stop = 0, start
    start, stop = _host_scalar(start), _host_scalar(stop)
    if step is not None:
        step = _host_scalar(step)
        if step == 0:
            raise ZeroDivisionError("division by zero")
        work = dtype
        if dtypes.is_float(dtype) and dtypes.finfo(dtype).bits < 32:
            work = np.dtype(np.float32)
        size = builtins.max(0, math.ceil((stop - start) / step))
        out = lax.add(convert(start, work), lax.mul(convert(step, work),
                                                    shapes.iota(work, size)))
        return to_array(lax.convert_element_type(out, dtype))
    if start == 0:
        return shapes.iota(dtype, builtins.max(0, math.ceil(stop)))
    size = builtins.max(0, math.ceil(stop - start))
    return lax.add(convert(start, dtype), shapes.iota(dtype, size))


def _host_scalar(x):
    if isinstance(x, (Array, np.ndarray, np.generic)):
        return np.asarray(x).item()
    if isinstance(x, core.TypedScalar):
        return x.val
    return x


def linspace(start, stop, num: int = 50, endpoint: bool = True, retstep: bool = False,
             dtype=None, axis: int = 0, *, device=None):
    num = core.concrete_or_error(operator.index, num, "'num' argument of jnp.linspace")
    axis = core.concrete_or_error(operator.index, axis, "'axis' argument of jnp.linspace")
    return _linspace(start, stop, num, endpoint, retstep, dtype, axis)


@jit_like_jax("_linspace", static_argnames=("num", "endpoint", "retstep", "dtype", "axis"),
              eager_compiled=True)
def _linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    start, stop = ensure_arraylike("linspace", start, stop)
    if dtype is None:
        dtype = dtypes.canonicalize_dtype(dtypes.to_inexact_dtype(
            dtypes.result_type(start, stop)))
    else:
        dtype = canon_dtype(dtype, "linspace")
    comp = dtypes.to_inexact_dtype(dtype)
    start, stop = convert(start, comp), convert(stop, comp)
    bshape = list(broadcast_shapes_checked(np.shape(start), np.shape(stop)))
    b_start, b_stop = broadcast_to(start, bshape), broadcast_to(stop, bshape)
    axis = len(bshape) + axis + 1 if axis < 0 else axis
    out_bshape = bshape[:axis] + [1] + bshape[axis:]
    div = num - 1 if endpoint else num
    if num > 1:
        delta = lax.div(lax.sub(b_stop, b_start), convert(div, comp))
        real = dtypes.real_dtype(comp)
        iota_shape = [1] * len(out_bshape)
        iota_shape[axis] = div
        t = lax.div(shapes.reshape(shapes.iota(real, div), tuple(iota_shape)),
                    convert(div, real))
        t = convert(t, comp)
        out = lax.add(lax.mul(shapes.reshape(b_start, tuple(out_bshape)),
                              lax.sub(convert(1, comp), t)),
                      lax.mul(shapes.reshape(b_stop, tuple(out_bshape)), t))
        if endpoint:
            out = shapes.concatenate([out, shapes.expand_dims(b_stop, (axis,))], axis)
    elif num == 1:
        delta = to_array(np.nan) if endpoint else lax.sub(b_stop, b_start)
        delta = convert(delta, comp)
        out = shapes.reshape(b_start, tuple(out_bshape))
    else:
        delta = to_array(np.array(np.nan, comp))
        out = zeros(tuple(bshape[:axis] + [0] + bshape[axis:]), dtype)
    if dtypes.is_int(dtype) and not dtypes.is_int(core.get_aval(out).dtype):
        out = lax.floor(out)
    out = to_array(convert(out, dtype))
    return (out, to_array(delta)) if retstep else out


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    from didax._src.numpy import ufuncs  # noqa: PLC0415

    num = core.concrete_or_error(operator.index, num, "'num' argument of jnp.logspace")
    dtype = canon_dtype(dtype, "logspace")
    comp = dtypes.to_inexact_dtype(dtype) if dtype is not None else None
    lin = linspace(start, stop, num, endpoint=endpoint, axis=axis, dtype=comp)
    base = ensure_arraylike("logspace", base)
    if comp is not None:
        base = convert(base, comp)
    base = shapes.expand_dims(base, (axis,)) if np.ndim(base) else base
    out = ufuncs.power(base, lin)
    return to_array(convert(out, dtype)) if dtype is not None else out


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    from didax._src.numpy import ufuncs, ufuncs_math  # noqa: PLC0415

    num = core.concrete_or_error(operator.index, num, "'num' argument of jnp.geomspace")
    dtype = canon_dtype(dtype, "geomspace")
    start, stop = ensure_arraylike("geomspace", start, stop)
    if dtype is None:
        dtype = dtypes.canonicalize_dtype(dtypes.to_inexact_dtype(
            dtypes.result_type(start, stop)))
    comp = dtypes.to_inexact_dtype(dtype)
    start, stop = convert(start, comp), convert(stop, comp)
    sign = ufuncs.sign(start)
    res = ufuncs.multiply(sign, logspace(ufuncs_math.log10(ufuncs.multiply(start, sign)),
                                         ufuncs_math.log10(ufuncs.multiply(stop, sign)), num,
                                         endpoint=endpoint, base=10.0, dtype=comp,
                                         axis=0))
    if axis != 0:
        from didax._src.numpy.lax_numpy import moveaxis  # noqa: PLC0415

        res = moveaxis(res, 0, axis)
    return to_array(convert(res, dtype))


# ----------------------------------------------------------------------------------------
# Eye and friends
# ----------------------------------------------------------------------------------------


def _iota_2d(N, M):
    # JAX builds these from the offset's dtype: a Python int's, int64 under x64
    idx = dtypes.default_int_dtype()
    return (shapes.broadcasted_iota(idx, (N, M), 0),
            shapes.broadcasted_iota(idx, (N, M), 1))


def _nm(N, M, k, name):
    N = core.concrete_or_error(operator.index, N, f"'N' argument of jnp.{name}")
    M = N if M is None else core.concrete_or_error(operator.index, M,
                                                   f"'M' argument of jnp.{name}")
    if N < 0 or M < 0:
        raise ValueError(f"negative dimensions are not allowed, got {N} and {M}")
    return N, M, operator.index(k)


def eye(N: int, M: int | None = None, k: int = 0, dtype=None, *, device=None):
    N, M, k = _nm(N, M, k, "eye")
    dtype = canon_dtype(dtype, "eye") or dtypes.default_float_dtype()
    rows, cols = _iota_2d(N, M)
    return to_array(lax.convert_element_type(lax.eq(lax.add(rows, k), cols), dtype))


def identity(n: int, dtype=None):
    return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=None):
    N, M, k = _nm(N, M, k, "tri")
    dtype = canon_dtype(dtype, "tri") or np.dtype(np.float32)  # float32 even under x64, as JAX
    idx = dtypes.default_int_dtype()
    rows = lax.add(shapes.broadcasted_iota(idx, (N, M), 0), k)
    cols = shapes.broadcasted_iota(idx, (N, M), 1)
    return to_array(lax.convert_element_type(lax.ge(rows, cols), dtype))


def fromfunction(function, shape, *, dtype=float, **kwargs):
    """function mapped (vmap, one axis per dimension) over the index grid: it sees scalar
    indices, as in JAX."""
    from didax._src.numpy.vectorize import vmap_simple  # noqa: PLC0415

    shape = canonicalize_shape(shape)
    dtype = canon_dtype(dtype)
    fn = functools.partial(function, **kwargs) if kwargs else function
    for i in range(len(shape)):
        in_axes = tuple(0 if j == i else None for j in range(len(shape)))
        fn = vmap_simple(fn, in_axes[::-1])
    return fn(*(arange(s, dtype=dtype) for s in shape))


def frombuffer(buffer, dtype=float, count=-1, offset=0):
    return array(np.frombuffer(buffer, dtype=dtype, count=count, offset=offset))


def fromiter(*args, **kwargs):
    raise NotImplementedError("jnp.fromiter() is not implemented because it may be "
                              "non-pure and thus unsafe for use with JIT and other JAX "
                              "transformations. Consider using jnp.asarray(np.fromiter(...)) "
                              "instead.")


def fromstring(string, dtype=float, count=-1, *, sep):
    return asarray(np.fromstring(string, dtype=dtype, count=count, sep=sep))

def fromfile(*args, **kwargs):
    raise NotImplementedError(
        "jnp.fromfile() is not implemented because it may be non-pure and thus unsafe for "
        "use with JIT and other JAX transformations. Consider using "
        "jnp.asarray(np.fromfile(...)) instead, although care should be taken if "
        "np.fromfile is used within a jax transformations because of its potential "
        "side-effect of consuming the file object; for more information see "
        "https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#pure-functions")


def load(file, *args, **kwargs):
    """np.load, returning a didax Array (bfloat16 data saved as void16 is recovered)."""
    out = np.load(file, *args, **kwargs)
    if isinstance(out, np.ndarray):
        if out.dtype == "V2":
            out = out.view(dtypes.bfloat16)
        try:
            out = asarray(out)
        except (TypeError, AssertionError):
            pass
    return out


def from_dlpack(x, /, *, device=None, copy=None):
    """An Array from any object exporting the DLPack protocol (via NumPy on the host)."""
    if isinstance(x, (Array, Tracer)):
        return x
    return asarray(np.from_dlpack(x))



__all__ = [
    "fromfile",
    "load",
    "from_dlpack",
    "array",
    "asarray",
    "copy",
    "zeros",
    "ones",
    "empty",
    "full",
    "zeros_like",
    "ones_like",
    "empty_like",
    "full_like",
    "arange",
    "linspace",
    "logspace",
    "geomspace",
    "eye",
    "identity",
    "tri",
    "fromfunction",
    "frombuffer",
    "fromiter",
    "fromstring",
]
