"""Reductions of didax.numpy: sum, prod, max, min, all, any, the bitwise/logical
reductions, mean, var, std, average, ptp, count_nonzero, argmax/argmin, the NaN-ignoring
variants and the cumulative sums/products, with NumPy's axis/keepdims/dtype/initial/where
semantics and JAX's dtype rules (bool and narrow ints sum to the default int, mean of ints
is float, float16 means accumulate in float32).

May import core, dtypes, didax.lax and numpy.util.
"""

from __future__ import annotations

import builtins
import operator

import numpy as np

from didax._src import core, dtypes
from didax._src.lax import lax, shapes
from didax._src.lax import reductions as lred
from didax._src.numpy.util import (
    broadcast_to,
    canonicalize_axes,
    canonicalize_axis,
    convert,
    dtype_of,
    ensure_arraylike,
    full,
    jit_like_jax,
    promote_dtypes_inexact,
    promote_dtypes_numeric,
    to_array,
    where3,
)


def promote_integer_dtype(dt) -> np.dtype:
    """bool and ints narrower than the default int become the default (u)int."""
    dt = np.dtype(dt)
    if dt == np.bool_:
        return dtypes.default_int_dtype()
    if dtypes.is_unsigned(dt):
        du = dtypes.default_uint_dtype()
        return du if dt.itemsize < du.itemsize else dt
    if dtypes.is_int(dt):
        di = dtypes.default_int_dtype()
        return di if dt.itemsize < di.itemsize else dt
    return dt


def _upcast_f16(dt) -> np.dtype:
    return np.dtype(np.float32) if np.dtype(dt) in (np.float16, dtypes.bfloat16) else \
        np.dtype(dt)


def check_where(name, where):
    if where is None:
        return None
    where = ensure_arraylike(name, where)
    if dtype_of(where) != np.bool_:
        raise ValueError(f"jnp.{name}: where must be None or a boolean array; got "
                         f"where.dtype={dtype_of(where)!r}.")
    return where


def _static_axis(axis, name):
    if axis is None or type(axis) is int:
        return axis
    if type(axis) is tuple and builtins.all(type(i) is int for i in axis):
        return axis

    def force(x):
        if x is None:
            return None
        if isinstance(x, (tuple, list)):
            return tuple(operator.index(i) for i in x)
        return operator.index(x)
    return core.concrete_or_error(force, axis, f"axis argument to jnp.{name}().")


def _init_val(dt, val):
    """The identity of a reduction in dtype dt (±inf becomes the extreme finite value of
    dtypes without inf, and the integer extremes for ints)."""
    dt = np.dtype(dt)
    if dt == np.bool_:
        return np.array(val > 0, dt)
    if np.isinf(val) and dtypes.is_float(dt) and not dtypes.supports_inf(dt):
        info = dtypes.finfo(dt)
        return np.array(info.min if val < 0 else info.max, dt)
    if np.isinf(val) and dtypes.is_int(dt):
        info = dtypes.iinfo(dt)
        return np.array(info.min if val < 0 else info.max, dt)
    return np.array(val, dt)


_LAX_REDUCERS = {
    "add": lred.reduce_sum, "mul": lred.reduce_prod, "max": lred.reduce_max,
    "min": lred.reduce_min, "and": lred.reduce_and, "or": lred.reduce_or,
    "xor": lred.reduce_xor,
}
_LAX_COMBINE = {
    "add": lax.add, "mul": lax.mul, "max": lax.max, "min": lax.min, "and": lax.bitwise_and,
    "or": lax.bitwise_or, "xor": lax.bitwise_xor,
}
_BOOL_OP = {"add": "or", "mul": "and"}


def _reduction(a, name, op, init, *, has_identity=True, preproc=None, axis=None,
               dtype=None, out=None, keepdims=False, initial=None, where=None,
               promote_integers=False):
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")
    a = ensure_arraylike(name, a)
    where = check_where(name, where)
    axis = _static_axis(axis, name)
    if initial is None and not has_identity and where is not None:
        raise ValueError(f"reduction operation {name} does not have an identity, so to "
                         "use a where mask one has to specify 'initial'")
    a = preproc(a) if preproc else a
    dims = canonicalize_axes(axis, np.ndim(a))
    if initial is None and not has_identity and \
            not builtins.all(np.shape(a)[d] >= 1 for d in dims):
        raise ValueError(f"zero-size array to reduction operation {name} which has no "
                         "identity")
    if dtype is None:
        result_dtype = dtype_of(a)
        if promote_integers:
            result_dtype = promote_integer_dtype(result_dtype)
    else:
        result_dtype = dtypes.check_and_canonicalize_user_dtype(dtype, name)
    a = lax.convert_element_type(a, result_dtype)
    if result_dtype == np.bool_:
        op = _BOOL_OP.get(op, op)
    if where is not None:
        a = where3(where, a, _init_val(result_dtype, init))
    res = _LAX_REDUCERS[op](a, dims) if dims else a
    if initial is not None:
        init_arr = convert(initial, result_dtype)
        if np.shape(init_arr) != ():
            raise ValueError("initial value must be a scalar. Got array of shape "
                             f"{np.shape(init_arr)}")
        res = _LAX_COMBINE[op](init_arr, res)
    if keepdims:
        res = shapes.expand_dims(res, dims)
    return to_array(lax.convert_element_type(res, result_dtype))


def _cast_to_bool(x):
    if dtypes.is_complex(dtype_of(x)):
        x = lax.real(x)
    return lax.convert_element_type(x, np.bool_)


def _cast_to_numeric(x):
    if dtype_of(x) != np.bool_:  # already numeric: nothing to promote
        return x
    return promote_dtypes_numeric(x)[0]


def _require_integer(x):
    if not (dtypes.is_int(dtype_of(x)) or dtype_of(x) == np.bool_):
        raise ValueError(f"integer argument required; got dtype={dtype_of(x)}")
    return x


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,  # noqa: A001
        promote_integers=True):
    return _reduction(a, "sum", "add", 0, preproc=_cast_to_numeric, axis=axis, dtype=dtype,
                      out=out, keepdims=keepdims, initial=initial, where=where,
                      promote_integers=promote_integers)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
         promote_integers=True):
    return _reduction(a, "prod", "mul", 1, preproc=_cast_to_numeric, axis=axis,
                      dtype=dtype, out=out, keepdims=keepdims, initial=initial, where=where,
                      promote_integers=promote_integers)


def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
    return _reduction(a, "max", "max", -np.inf, has_identity=False, axis=axis, out=out,
                      keepdims=keepdims, initial=initial, where=where)


def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
    return _reduction(a, "min", "min", np.inf, has_identity=False, axis=axis, out=out,
                      keepdims=keepdims, initial=initial, where=where)


amax, amin = max, min


def all(a, axis=None, out=None, keepdims=False, *, where=None):  # noqa: A001
    return _reduction(a, "all", "and", True, preproc=_cast_to_bool, axis=axis, out=out,
                      keepdims=keepdims, where=where)


def any(a, axis=None, out=None, keepdims=False, *, where=None):  # noqa: A001
    return _reduction(a, "any", "or", False, preproc=_cast_to_bool, axis=axis, out=out,
                      keepdims=keepdims, where=where)


def _bitwise_reduction(name, op, init_fn, preproc):
    def f(a, axis=None, dtype=None, keepdims=False, initial=None, where=None):
        a = ensure_arraylike(name, a)
        return _reduction(a, name, op, init_fn(a), preproc=preproc, axis=axis,
                          dtype=dtype, keepdims=keepdims, initial=initial, where=where)
    f.__name__ = name
    return f


def _all_ones(a):
    dt = dtype_of(a)
    return True if dt == np.bool_ else (-1 if dtypes.is_signed(dt) else
                                        int(dtypes.iinfo(dt).max))


reduce_bitwise_and = _bitwise_reduction("reduce_bitwise_and", "and", _all_ones,
                                        _require_integer)
reduce_bitwise_or = _bitwise_reduction("reduce_bitwise_or", "or", lambda a: 0,
                                       _require_integer)
reduce_bitwise_xor = _bitwise_reduction("reduce_bitwise_xor", "xor", lambda a: 0,
                                        _require_integer)
reduce_logical_and = _bitwise_reduction("reduce_logical_and", "and", lambda a: True,
                                        _cast_to_bool)
reduce_logical_or = _bitwise_reduction("reduce_logical_or", "or", lambda a: False,
                                       _cast_to_bool)
reduce_logical_xor = _bitwise_reduction("reduce_logical_xor", "xor", lambda a: False,
                                        _cast_to_bool)


# ----------------------------------------------------------------------------------------
# Means and moments
# ----------------------------------------------------------------------------------------


def _count(a, axis, keepdims, where, dt):
    if where is None:
        shape = np.shape(a)
        dims = range(len(shape)) if axis is None else \
            (axis if isinstance(axis, (tuple, list)) else (axis,))
        n = 1
        for d in dims:
            n *= shape[d]  # a bad axis raises IndexError here, as in JAX
        return core.typed_scalar(n, dt)
    return sum(broadcast_to(where, np.shape(a)), axis, dtype=dt, keepdims=keepdims)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.mean is not supported.")
    a = ensure_arraylike("mean", a)
    where = check_where("mean", where)
    axis = _static_axis(axis, "mean")
    if dtype is None:
        result_dtype = dtypes.canonicalize_dtype(dtypes.to_inexact_dtype(dtype_of(a)))
        comp = _upcast_f16(result_dtype)
    else:
        result_dtype = comp = dtypes.check_and_canonicalize_user_dtype(dtype, "mean")
    n = _count(a, axis, keepdims, where, comp)
    total = sum(a, axis, dtype=comp, keepdims=keepdims, where=where)
    return to_array(lax.convert_element_type(lax.div(total, n), result_dtype))


def _var_types(a_dtype, dtype):
    if dtype is not None:
        if not dtypes.is_complex(dtype) and dtypes.is_complex(a_dtype):
            raise ValueError("jax.numpy.var does not yet support real dtype parameters when "
                             "computing the variance of an array of complex values. The "
                             "semantics of numpy.var seem unclear in this case. Please "
                             "comment on https://github.com/jax-ml/jax/issues/2283 if this "
                             "behavior is important to you.")
        comp = dtype
    elif not dtypes.is_inexact(a_dtype):
        dtype = comp = dtypes.canonicalize_dtype(dtypes.to_inexact_dtype(a_dtype))
    else:
        dtype, comp = dtypes.real_dtype(a_dtype), a_dtype
    return _upcast_f16(comp), np.dtype(dtype)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        correction=None, mean=None):
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.var is not supported.")
    a = ensure_arraylike("var", a)
    if correction is None:
        correction = ddof
    elif not isinstance(ddof, int) or ddof != 0:
        raise ValueError("ddof and correction can't be provided simultaneously.")
    axis = _static_axis(axis, "var")
    if dtype is not None:
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "var")
    return _var(a, correction, mean, axis=axis, dtype=dtype, keepdims=keepdims, where=where)


@jit_like_jax("_var", static_argnames=("axis", "dtype", "keepdims"))
def _var(a, correction, a_mean, *, axis=None, dtype=None, keepdims=False, where=None):
    where = check_where("var", where)
    comp, dtype = _var_types(dtype_of(a), dtype)
    a = lax.convert_element_type(a, comp)
    if a_mean is None:
        a_mean = globals()["mean"](a, axis, dtype=comp, keepdims=True, where=where)
    else:
        a_mean = lax.convert_element_type(ensure_arraylike("var", a_mean), comp)
    centered = lax.sub(a, a_mean)
    if dtypes.is_complex(comp):
        centered = lax.real(lax.mul(centered, lax.conj(centered)))
        comp = dtype_of(centered)
    else:
        centered = lax.square(centered)
    n = _count(a, axis, keepdims, where, comp)
    n = lax.sub(n, lax.convert_element_type(correction, comp))
    total = sum(centered, axis, dtype=comp, keepdims=keepdims, where=where)
    res = lax.convert_element_type(lax.div(total, n), dtype)
    return where3(lax.gt(n, core.typed_scalar(0, dtype_of(n))), res, np.nan)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        correction=None, mean=None):
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.std is not supported.")
    a = ensure_arraylike("std", a)
    if correction is None:
        correction = ddof
    elif not isinstance(ddof, int) or ddof != 0:
        raise ValueError("ddof and correction can't be provided simultaneously.")
    axis = _static_axis(axis, "std")
    if dtype is not None:
        dtype = dtypes.check_and_canonicalize_user_dtype(dtype, "std")
        if not dtypes.is_inexact(dtype):
            raise ValueError(f"dtype argument to jnp.std must be inexact; got {dtype}")
    return _std(a, correction, mean, axis=axis, dtype=dtype, keepdims=keepdims, where=where)


@jit_like_jax("_std", static_argnames=("axis", "dtype", "keepdims"))
def _std(a, correction, a_mean, *, axis=None, dtype=None, keepdims=False, where=None):
    return lax.sqrt(var(a, axis, dtype, correction=correction, keepdims=keepdims,
                        where=where, mean=a_mean))


def average(a, axis=None, weights=None, returned=False, keepdims=False):
    axis = _static_axis(axis, "average")
    a = ensure_arraylike("average", a)
    dims = canonicalize_axes(axis, np.ndim(a))
    if weights is None:
        (a,) = promote_dtypes_inexact(a)
        avg = mean(a, axis, keepdims=keepdims)
        n = 1
        for d in dims:
            n *= np.shape(a)[d]
        wsum = full((), n, dtype_of(avg))
    else:
        a, weights = promote_dtypes_inexact(a, ensure_arraylike("average", weights))
        if np.shape(a) != np.shape(weights):
            if axis is None:
                raise ValueError("Axis must be specified when shapes of a and weights "
                                 "differ.")
            if np.shape(weights) != tuple(np.shape(a)[d] for d in dims):
                raise ValueError("Shape of weights must be consistent with shape of a "
                                 "along specified axis.")
            order = sorted(range(len(dims)), key=lambda i: dims[i])
            weights = shapes.transpose(weights, tuple(order)) if order != \
                list(range(len(dims))) else weights
            weights = broadcast_to(shapes.reshape(weights, tuple(
                d if i in dims else 1 for i, d in enumerate(np.shape(a)))), np.shape(a))
        wsum = sum(weights, axis, keepdims=keepdims)
        avg = lax.div(sum(lax.mul(a, weights), axis, keepdims=keepdims), wsum)
    if returned:
        if np.shape(avg) != np.shape(wsum):
            wsum = broadcast_to(wsum, np.shape(avg))
        return avg, to_array(wsum)
    return avg


@jit_like_jax("_ptp", static_argnames=("axis", "keepdims"))
def ptp(a, axis=None, out=None, keepdims=False):
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.ptp is not supported.")
    return lax.sub(max(a, axis, keepdims=keepdims), min(a, axis, keepdims=keepdims))


@jit_like_jax("count_nonzero", static_argnames=("axis", "keepdims"))
def count_nonzero(a, axis=None, keepdims=False):
    a = ensure_arraylike("count_nonzero", a)
    nz = lax.ne(a, core.typed_scalar(0, dtype_of(a)))
    return sum(nz, axis, dtype=dtypes.default_int_dtype(), keepdims=keepdims)


# ----------------------------------------------------------------------------------------
# argmax / argmin
# ----------------------------------------------------------------------------------------


def _arg(name, prim_fn):
    def f(a, axis=None, out=None, keepdims=None):
        if out is not None:
            raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")
        a = ensure_arraylike(name, a)
        axis = _static_axis(axis, name)
        shape = np.shape(a)
        if dtypes.is_complex(dtype_of(a)):
            raise TypeError(f"{name} does not accept dtype {dtype_of(a)}.")
        if axis is not None and shape[axis] == 0:  # IndexError for a bad axis, as in JAX
            raise ValueError(f"attempt to get {name} of an empty sequence")
        if axis is None:
            flat = shapes.reshape(a, (int(np.prod(shape, dtype=np.int64)),))
            ax, dims = 0, tuple(range(len(shape)))
        else:
            flat, ax = a, canonicalize_axis(axis, len(shape))
            dims = (ax,)
        if np.shape(flat)[ax] == 0:
            raise ValueError(f"attempt to get {name} of an empty sequence")
        res = prim_fn(flat, ax, dtypes.default_int_dtype())
        return shapes.expand_dims(res, dims) if keepdims else res
    f.__name__ = f.__qualname__ = name
    return f


argmax = _arg("argmax", lred.argmax)
argmin = _arg("argmin", lred.argmin)


# ----------------------------------------------------------------------------------------
# Cumulative reductions
# ----------------------------------------------------------------------------------------


def _cumulative(name, prim_fn, a, axis, dtype, fill_nan=False, fill_value=0,
                promote_integers=False):
    a = ensure_arraylike(name, a)
    if axis is None or np.ndim(a) == 0:
        a = shapes.reshape(a, (int(np.size(a)),))
    axis = canonicalize_axis(0 if axis is None else axis, np.ndim(a))
    if fill_nan:
        a = where3(lax.ne(a, a), core.typed_scalar(fill_value, dtype_of(a)), a)
    if dtype is None:
        res_dt = promote_integer_dtype(dtype_of(a)) if promote_integers or \
            dtype_of(a) == np.bool_ else dtype_of(a)
        comp = res_dt
    elif np.dtype(dtype) == np.bool_:
        res_dt = np.dtype(np.bool_)
        if dtype_of(a) != np.bool_:
            a = lax.ne(a, core.typed_scalar(0, dtype_of(a)))
        comp = promote_integer_dtype(res_dt)
    else:
        res_dt = comp = dtypes.check_and_canonicalize_user_dtype(dtype, name)
    a = lax.convert_element_type(a, comp)
    return lax.convert_element_type(prim_fn(a, axis), res_dt)


@jit_like_jax("cumsum", static_argnames=("axis", "dtype"))
def cumsum(a, axis=None, dtype=None, out=None):
    return _cumulative("cumsum", lred.cumsum, a, axis, dtype)


@jit_like_jax("cumprod", static_argnames=("axis", "dtype"))
def cumprod(a, axis=None, dtype=None, out=None):
    return _cumulative("cumprod", lred.cumprod, a, axis, dtype)


@jit_like_jax("nancumsum", static_argnames=("axis", "dtype"))
def nancumsum(a, axis=None, dtype=None, out=None):
    return _cumulative("nancumsum", lred.cumsum, a, axis, dtype, fill_nan=True)


@jit_like_jax("nancumprod", static_argnames=("axis", "dtype"))
def nancumprod(a, axis=None, dtype=None, out=None):
    return _cumulative("nancumprod", lred.cumprod, a, axis, dtype, fill_nan=True,
                       fill_value=1)


def _cumulative_api(name, prim_fn, identity):
    @jit_like_jax(f"_{name}_with_promotion", static_argnames=("axis", "dtype"))
    def promoted(x, axis=None, dtype=None):
        return _cumulative(name, prim_fn, x, axis, dtype, promote_integers=True)

    def f(x, /, *, axis=None, dtype=None, include_initial=False):
        x = ensure_arraylike(name, x)
        if np.ndim(x) == 0:
            raise ValueError(f"The input must be non-scalar to take a cumulative {name[11:]}, "
                             "however a scalar value or scalar array was given.")
        if axis is None and np.ndim(x) > 1:
            raise ValueError(f"The input array has rank {np.ndim(x)}, however axis was not "
                             "set to an explicit value. The axis argument is only optional "
                             "for one-dimensional arrays.")
        axis = canonicalize_axis(0 if axis is None else axis, np.ndim(x))
        out = promoted(x, axis, dtype)
        if include_initial:
            cfg = [(0, 0, 0)] * np.ndim(x)
            cfg[axis] = (1, 0, 0)
            out = shapes.pad(out, core.typed_scalar(identity, dtype_of(out)), tuple(cfg))
        return out
    f.__name__ = f.__qualname__ = name
    return f


cumulative_sum = _cumulative_api("cumulative_sum", lred.cumsum, 0)
cumulative_prod = _cumulative_api("cumulative_prod", lred.cumprod, 1)

__all__ = [
    "sum",
    "prod",
    "max",
    "min",
    "amax",
    "amin",
    "all",
    "any",
    "mean",
    "var",
    "std",
    "average",
    "ptp",
    "count_nonzero",
    "argmax",
    "argmin",
    "cumsum",
    "cumprod",
    "nancumsum",
    "nancumprod",
    "cumulative_sum",
    "cumulative_prod",
]
