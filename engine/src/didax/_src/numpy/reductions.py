"""Reductions of didax.numpy: sum, prod, max, min, all, any, mean, var, std, argmax,
argmin, cumulative sums/products, with NumPy's axis/keepdims/dtype/where semantics and
JAX's dtype rules (bool/int sums upcast to the default int, mean of ints is float).

May import core, dtypes, didax.lax and numpy.util.
"""

from __future__ import annotations

import builtins
import operator
from collections.abc import Sequence

import numpy as np

from didax._src import core, dtypes
from didax._src.lax import lax, reductions, shapes
from didax._src.numpy.util import check_arraylike, convert, promote_dtypes_inexact


def _canon_axes(axis, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        axes = tuple(shapes.canonicalize_axis(a, ndim) for a in axis)
    else:
        axes = (shapes.canonicalize_axis(operator.index(axis), ndim),)
    if len(set(axes)) != len(axes):
        raise ValueError(f"duplicate value in 'axis': {axis}")
    return axes


def _keepdims(out, shape, axes):
    kept = tuple(1 if i in axes else d for i, d in enumerate(shape))
    return shapes.reshape(out, kept)


def _as_array(a):
    check_arraylike("reduction", a)
    if isinstance(a, (int, float, complex, bool)):
        return convert(a, core.get_aval(a).dtype, core.get_aval(a).weak_type)
    return a


def _sum_dtype(dt):
    if dt == np.bool_ or (dtypes.is_int(dt) and dt.itemsize < dtypes.default_int_dtype().itemsize):
        return dtypes.default_uint_dtype() if dtypes.is_unsigned(dt) else \
            dtypes.default_int_dtype()
    return dt


def _reduction(name, prim_fn, init_kind, upcast=False, bool_ok=True):
    def reducer(a, axis=None, dtype=None, out=None, keepdims=False, initial=None,
                where=None, promote_integers=True):
        if out is not None:
            raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")
        a = _as_array(a)
        aval = core.get_aval(a)
        shape = aval.shape
        axes = _canon_axes(axis, len(shape))
        dt = aval.dtype
        if dtype is not None:
            dt = dtypes.canonicalize_dtype(np.dtype(dtype))
        elif upcast and promote_integers:
            dt = _sum_dtype(dt)
        if dt != aval.dtype:
            a = convert(a, dt, aval.weak_type)
        if where is not None:
            a = lax.select(_bcast(where, shape), a, lax.full_like(a, _identity(init_kind, dt)))
        res = prim_fn(a, axes) if axes else a
        if initial is not None:
            res = _combine(init_kind, res, convert(initial, dt))
        if keepdims:
            res = _keepdims(res, shape, axes)
        return res
    reducer.__name__ = name
    return reducer


def _bcast(where, shape):
    from didax._src.numpy.util import broadcast_to  # noqa: PLC0415

    return broadcast_to(where, shape)


def _identity(kind, dt):
    return reductions._identity(dt, kind)


def _combine(kind, a, b):
    return {"sum": lax.add, "prod": lax.mul, "max": lax.max, "min": lax.min,
            "and": lax.bitwise_and, "or": lax.bitwise_or}[kind](a, b)


def _reduce_bool(prim_fn):
    def f(a, axes):
        if core.get_aval(a).dtype != np.bool_:
            a = lax.ne(a, np.zeros((), core.get_aval(a).dtype))
        return prim_fn(a, axes)
    return f


sum = _reduction("sum", reductions.reduce_sum, "sum", upcast=True)  # noqa: A001
prod = _reduction("prod", reductions.reduce_prod, "prod", upcast=True)
max = _reduction("max", reductions.reduce_max, "max")  # noqa: A001
min = _reduction("min", reductions.reduce_min, "min")  # noqa: A001
_all = _reduction("all", _reduce_bool(reductions.reduce_and), "and")
_any = _reduction("any", _reduce_bool(reductions.reduce_or), "or")
amax, amin = max, min


def all(a, axis=None, out=None, keepdims=False, *, where=None):  # noqa: A001
    a = _as_array(a)
    if core.get_aval(a).dtype != np.bool_:
        a = lax.ne(a, np.zeros((), core.get_aval(a).dtype))
    return _all(a, axis, keepdims=keepdims, where=where)


def any(a, axis=None, out=None, keepdims=False, *, where=None):  # noqa: A001
    a = _as_array(a)
    if core.get_aval(a).dtype != np.bool_:
        a = lax.ne(a, np.zeros((), core.get_aval(a).dtype))
    return _any(a, axis, keepdims=keepdims, where=where)


def _count(shape, axes, where, dt):
    if where is None:
        n = 1
        for ax in axes:
            n *= shape[ax]
        return n
    w = _bcast(where, shape)
    return reductions.reduce_sum(convert(w, dt), axes)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    a = _as_array(a)
    aval = core.get_aval(a)
    shape = aval.shape
    axes = _canon_axes(axis, len(shape))
    if dtype is None:
        dt = dtypes.canonicalize_dtype(dtypes.to_inexact_dtype(aval.dtype))
    else:
        dt = dtypes.canonicalize_dtype(np.dtype(dtype))
    total = sum(a, axis, dtype=dt, keepdims=keepdims, where=where)
    n = _count(shape, axes, where, dt)
    if isinstance(n, int):
        return lax.div(total, core.typed_scalar(n, dt))
    if keepdims:
        n = _keepdims(n, shape, axes)
    return lax.div(total, n)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        correction=None):
    if correction is not None:
        ddof = correction
    a = _as_array(a)
    (a,) = promote_dtypes_inexact(a)
    aval = core.get_aval(a)
    shape = aval.shape
    axes = _canon_axes(axis, len(shape))
    dt = aval.dtype if dtype is None else dtypes.canonicalize_dtype(np.dtype(dtype))
    centered = lax.sub(a, mean(a, axis, keepdims=True, where=where))
    if dtypes.is_complex(core.get_aval(centered).dtype):
        sq = lax.real(lax.mul(centered, lax.conj(centered)))
    else:
        sq = lax.square(centered)
    n = _count(shape, axes, where, dtypes.real_dtype(dt))
    total = sum(sq, axis, keepdims=keepdims, where=where)
    if isinstance(n, int):
        denom = builtins.max(n - ddof, 0)
        out = lax.div(total, core.typed_scalar(denom, core.get_aval(total).dtype))
        if n - ddof <= 0:
            out = lax.full_like(out, np.nan)
        return convert(out, dtypes.real_dtype(dt)) if dtype is not None else out
    return lax.div(total, lax.sub(n, core.typed_scalar(ddof, core.get_aval(n).dtype)))


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        correction=None):
    return lax.sqrt(var(a, axis, dtype, out, ddof, keepdims, where=where,
                        correction=correction))


def _arg(name, prim_fn):
    def f(a, axis=None, out=None, keepdims=False):
        a = _as_array(a)
        shape = core.get_aval(a).shape
        if axis is None:
            a = shapes.reshape(a, (int(np.prod(shape, dtype=np.int64)),))
            ax = 0
        else:
            ax = shapes.canonicalize_axis(axis, len(shape))
        if core.get_aval(a).shape[ax] == 0:
            raise ValueError(f"attempt to get {name} of an empty sequence")
        res = prim_fn(a, ax, dtypes.default_int_dtype())
        if keepdims:
            if axis is None:
                res = shapes.reshape(res, (1,) * len(shape))
            else:
                res = shapes.expand_dims(res, (ax,))
        return res
    f.__name__ = name
    return f


argmax = _arg("argmax", reductions.argmax)
argmin = _arg("argmin", reductions.argmin)


def _cumulative(name, prim_fn, upcast):
    def f(a, axis=None, dtype=None, out=None):
        a = _as_array(a)
        aval = core.get_aval(a)
        if axis is None:
            a = shapes.reshape(a, (aval.size,))
            axis = 0
        axis = shapes.canonicalize_axis(axis, builtins.max(np.ndim(a), 1))
        dt = aval.dtype
        if dtype is not None:
            dt = dtypes.canonicalize_dtype(np.dtype(dtype))
        elif upcast:
            dt = _sum_dtype(dt)
        if dt != aval.dtype:
            a = convert(a, dt)
        return prim_fn(a, axis)
    f.__name__ = name
    return f


cumsum = _cumulative("cumsum", reductions.cumsum, True)
cumprod = _cumulative("cumprod", reductions.cumprod, True)
cumulative_sum = cumsum
cumulative_prod = cumprod


def count_nonzero(a, axis=None, keepdims=False):
    a = _as_array(a)
    nz = lax.ne(a, np.zeros((), core.get_aval(a).dtype))
    return sum(nz, axis, dtype=dtypes.default_int_dtype(), keepdims=keepdims)


def ptp(a, axis=None, keepdims=False):
    return lax.sub(max(a, axis, keepdims=keepdims), min(a, axis, keepdims=keepdims))


def average(a, axis=None, weights=None, returned=False, keepdims=False):
    if weights is None:
        avg = mean(a, axis, keepdims=keepdims)
        if returned:
            cnt = np.prod([np.shape(a)[i] for i in _canon_axes(axis, np.ndim(a))])
            return avg, lax.full_like(avg, cnt)
        return avg
    a, weights = promote_dtypes_inexact(a, weights)
    shape = np.shape(a)
    if np.shape(weights) != shape:
        axes = _canon_axes(axis, len(shape))
        if len(axes) != 1 or np.ndim(weights) != 1:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        weights = shapes.broadcast_in_dim(weights, shape, axes)
    wsum = sum(weights, axis, keepdims=keepdims)
    avg = lax.div(sum(lax.mul(a, weights), axis, keepdims=keepdims), wsum)
    return (avg, wsum) if returned else avg


def _nan_reduction(fn, fill):
    def f(a, axis=None, dtype=None, out=None, keepdims=False, **kw):
        a = _as_array(a)
        dt = core.get_aval(a).dtype
        if dtypes.is_inexact(dt):
            a = lax.select(lax.ne(a, a), lax.full_like(a, fill), a)
        kwargs = dict(axis=axis, keepdims=keepdims)
        if dtype is not None:
            kwargs["dtype"] = dtype
        return fn(a, **kwargs)
    return f


nansum = _nan_reduction(sum, 0)
nanprod = _nan_reduction(prod, 1)
nanmax = _nan_reduction(max, -np.inf)
nanmin = _nan_reduction(min, np.inf)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False):
    a = _as_array(a)
    (a,) = promote_dtypes_inexact(a)
    valid = lax.eq(a, a)
    total = sum(lax.select(valid, a, lax.full_like(a, 0)), axis, keepdims=keepdims)
    count = sum(valid, axis, dtype=core.get_aval(a).dtype, keepdims=keepdims)
    return lax.div(total, count)


__all__: Sequence[str] = ()
