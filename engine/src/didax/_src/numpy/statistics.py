"""Order statistics and NaN-aware reductions of didax.numpy: quantile/percentile/median
(linear, lower, higher, midpoint, nearest, inverted_cdf) and their nan* forms, nansum/
nanprod/nanmin/nanmax/nanmean/nanvar/nanstd, nanargmin/nanargmax, cov/corrcoef, bincount,
histogram/histogram_bin_edges.

May import core, dtypes, array, didax.lax and the numpy implementation modules util,
array_creation, manipulation, reductions, ufuncs, ufuncs_math, indexing_ops, sorting.
"""

from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from didax._src import core, dtypes
from didax._src.lax import lax, shapes
from didax._src.lax import reductions as lred
from didax._src.numpy import reductions as red
from didax._src.numpy import ufuncs
from didax._src.numpy.array_creation import linspace, zeros
from didax._src.numpy.indexing_ops import take_along_axis
from didax._src.numpy.manipulation import atleast_2d, concatenate, ravel, reshape, transpose
from didax._src.numpy.util import (
    canonicalize_axes,
    const_like,
    dtype_of,
    ensure_arraylike,
    full,
    full_like,
    jit_like_jax,
    promote_dtypes_inexact,
    where3,
)

_NAN = float("nan")


def _isnan(x):
    return lax.ne(x, x)


# ----------------------------------------------------------------------------------------
# NaN-ignoring reductions
# ----------------------------------------------------------------------------------------


def _nan_reduction(a, name, reduction, init, nan_if_all_nan, axis=None, keepdims=False,
                   where=None, **kw):
    a = ensure_arraylike(name, a)
    where = red.check_where(name, where)
    if not dtypes.is_inexact(dtype_of(a)):
        return reduction(a, axis=axis, keepdims=keepdims, where=where, **kw)
    filled = where3(_isnan(a), red._init_val(dtype_of(a), init), a)
    out = reduction(filled, axis=axis, keepdims=keepdims, where=where, **kw)
    if nan_if_all_nan:
        return where3(red.all(_isnan(a), axis=axis, keepdims=keepdims),
                      const_like(a, np.nan), out)
    return out


def _nan_minmax(name, reduction, init):
    @jit_like_jax(name, static_argnames=("axis", "keepdims"))
    def impl(a, axis=None, keepdims=False, initial=None, where=None):
        return _nan_reduction(a, name, reduction, init, initial is None, axis=axis,
                              keepdims=keepdims, initial=initial, where=where)

    def f(a, axis=None, out=None, keepdims=False, initial=None, where=None):
        if out is not None:
            raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")
        return impl(a, red._static_axis(axis, name), keepdims, initial, where)
    f.__name__ = f.__qualname__ = name
    return f


nanmin = _nan_minmax("nanmin", red.min, np.inf)
nanmax = _nan_minmax("nanmax", red.max, -np.inf)


def _nan_sumprod(name, reduction, init):
    @jit_like_jax(name, static_argnames=("axis", "dtype", "keepdims"))
    def impl(a, axis=None, dtype=None, keepdims=False, initial=None, where=None):
        return _nan_reduction(a, name, reduction, init, False, axis=axis, dtype=dtype,
                              keepdims=keepdims, initial=initial, where=where)

    def f(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
        if out is not None:
            raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")
        dtype = None if dtype is None else dtypes.check_and_canonicalize_user_dtype(dtype)
        return impl(a, red._static_axis(axis, name), dtype, keepdims, initial, where)
    f.__name__ = f.__qualname__ = name
    return f


nansum = _nan_sumprod("nansum", red.sum, 0)
nanprod = _nan_sumprod("nanprod", red.prod, 1)


@jit_like_jax("nanmean", static_argnames=("axis", "dtype", "keepdims"))
def _nanmean(a, axis=None, dtype=None, keepdims=False, where=None):
    if not dtypes.is_inexact(dtype_of(a)):
        return red.mean(a, axis, dtype, keepdims=keepdims, where=where)
    if dtype is None:
        dtype = dtypes.canonicalize_dtype(dtypes.to_inexact_dtype(dtype_of(a)))
    count = red.sum(lax.bitwise_not(_isnan(a)), axis, dtype=dtype, keepdims=keepdims,
                    where=where)
    return lax.div(nansum(a, axis, dtype=dtype, keepdims=keepdims, where=where), count)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.nanmean is not supported.")
    a = ensure_arraylike("nanmean", a)
    where = red.check_where("nanmean", where)
    dtype = None if dtype is None else dtypes.check_and_canonicalize_user_dtype(dtype, "mean")
    return _nanmean(a, red._static_axis(axis, "nanmean"), dtype, keepdims, where)


@jit_like_jax("nanvar", static_argnames=("axis", "dtype", "keepdims"))
def _nanvar(a, ddof, axis=None, dtype=None, keepdims=False, where=None):
    comp, dtype = red._var_types(dtype_of(a), dtype)
    a = lax.convert_element_type(a, comp)
    a_mean = nanmean(a, axis, dtype=comp, keepdims=True, where=where)
    centered = where3(_isnan(a), 0, lax.sub(a, a_mean))
    if dtypes.is_complex(dtype_of(centered)):
        centered = lax.real(lax.mul(centered, lax.conj(centered)))
    else:
        centered = lax.square(centered)
    n = red.sum(lax.bitwise_not(_isnan(a)), axis, keepdims=keepdims, where=where)
    n = lax.sub(n, lax.convert_element_type(ddof, dtype_of(n)))
    bad = lax.le(n, core.typed_scalar(0, dtype_of(n)))
    total = red.sum(centered, axis, keepdims=keepdims, where=where)
    total = where3(bad, _NAN, total)
    divisor = where3(bad, 1, n)
    out = lax.div(total, lax.convert_element_type(divisor, dtype_of(total)))
    return lax.convert_element_type(out, dtype)


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None):
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.nanvar is not supported.")
    a = ensure_arraylike("nanvar", a)
    where = red.check_where("nanvar", where)
    dtype = None if dtype is None else dtypes.check_and_canonicalize_user_dtype(dtype)
    return _nanvar(a, ddof, red._static_axis(axis, "nanvar"), dtype, keepdims, where)


@jit_like_jax("nanstd", static_argnames=("axis", "dtype", "keepdims"))
def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None):
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.nanstd is not supported.")
    return lax.sqrt(nanvar(a, axis, dtype, ddof=ddof, keepdims=keepdims, where=where))


def _nanarg(name, fn, fill):
    @jit_like_jax(f"_{name}", static_argnames=("axis", "keepdims"))
    def impl(a, axis=None, keepdims=False):
        if not dtypes.is_inexact(dtype_of(a)):
            return fn(a, axis=axis, keepdims=keepdims)
        mask = _isnan(a)
        res = fn(where3(mask, fill, a), axis=axis, keepdims=keepdims)
        return where3(red.all(mask, axis=axis, keepdims=keepdims), -1, res)

    def f(a, axis=None, out=None, keepdims=None):
        if out is not None:
            raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")
        a = ensure_arraylike(name, a)
        return impl(a, None if axis is None else operator.index(axis), bool(keepdims))
    f.__name__ = f.__qualname__ = name
    return f


nanargmax = _nanarg("nanargmax", red.argmax, -np.inf)
nanargmin = _nanarg("nanargmin", red.argmin, np.inf)


# ----------------------------------------------------------------------------------------
# Quantiles
# ----------------------------------------------------------------------------------------

_METHODS = ("linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf")


def _to_last_axis(a, axis, keepdims):
    """a with the reduced axes flattened into its last axis, and the keepdims shape."""
    nd = np.ndim(a)
    axes = canonicalize_axes(axis, nd)
    keep_shape = [1 if i in axes else d for i, d in enumerate(np.shape(a))] if keepdims \
        else None
    rest = [i for i in range(nd) if i not in axes]
    a = shapes.transpose(a, (*rest, *axes)) if (*rest, *axes) != tuple(range(nd)) else a
    rest_shape = tuple(np.shape(a)[:len(rest)])
    n = math.prod(np.shape(a)[len(rest):])
    return reshape(a, (*rest_shape, n)), rest_shape, keep_shape


@jit_like_jax("quantile", static_argnames=("axis", "method", "keepdims", "squash_nans"))
def _quantile(a, q, weights, axis, method, keepdims, squash_nans):
    if method not in _METHODS:
        raise ValueError("method can only be 'linear', 'lower', 'higher', 'midpoint', "
                         "'nearest' or 'inverted_cdf'")
    if weights is not None and method != "inverted_cdf":
        raise NotImplementedError(f"{method} doesn't support weights. Only method "
                                  "'inverted_cdf' supports weights.")
    (a,) = promote_dtypes_inexact(a)
    if dtypes.is_complex(dtype_of(a)):
        raise ValueError("quantile does not support complex input, as the operation is "
                         "poorly defined.")
    if np.ndim(q) > 1:
        raise ValueError(f"q must be have rank <= 1, got shape {np.shape(q)}")
    x, rest, keep_shape = _to_last_axis(a, axis, keepdims)
    if keep_shape == []:  # a 0-d input keeps the flattened axis, as JAX returns it
        keep_shape = [1]
    if squash_nans and np.shape(x)[-1] == 0:  # JAX's error classes for this case
        if np.ndim(x) == 1 and not keepdims:
            raise IndexError("index is out of bounds for axis 0 with size 0")
        raise TypeError("Slice size at index 0 in gather op is out of range, must be "
                        "within [0, 0 + 1), got 1.")
    if weights is not None:
        weights = _weights_like(weights, a, axis)
    if method == "inverted_cdf":
        out = _inverted_cdf(x, q, weights, squash_nans)
    else:
        out = _interpolated(x, q, method, squash_nans)
    if keep_shape is not None:
        out = reshape(out, (*np.shape(q), *keep_shape))
    return lax.convert_element_type(out, dtype_of(a))


def _weights_like(weights, a, axis):
    (weights,) = promote_dtypes_inexact(weights)
    if np.shape(weights) != np.shape(a):
        dims = canonicalize_axes(axis, np.ndim(a))
        if np.shape(weights) != tuple(np.shape(a)[d] for d in dims):
            raise ValueError(f"Weights shape {np.shape(weights)} must match reduction axes "
                             f"{tuple(np.shape(a)[d] for d in dims)}")
        weights = shapes.broadcast_in_dim(weights, np.shape(a), dims)
    return _to_last_axis(weights, axis, False)[0]


def _sorted_rows(x, squash_nans):
    if squash_nans:
        x = where3(_isnan(x), _NAN, x)  # NaNs sort last
        return lred.sort(x, dimension=np.ndim(x) - 1)
    any_nan = red.any(_isnan(x), axis=-1, keepdims=True)
    return lred.sort(where3(any_nan, _NAN, x), dimension=np.ndim(x) - 1)


def _interpolated(x, q, method, squash_nans):
    s = _sorted_rows(x, squash_nans)
    n = np.shape(x)[-1]
    qdt = dtype_of(q)
    if squash_nans:
        count = red.sum(lax.bitwise_not(_isnan(x)), axis=-1, dtype=qdt)
    else:
        count = full(np.shape(x)[:-1], n, qdt)
    qq = shapes.expand_dims(q, tuple(range(np.ndim(q), np.ndim(q) + np.ndim(count))))
    count = shapes.expand_dims(count, tuple(range(np.ndim(q))))
    pos = lax.mul(qq, lax.sub(count, core.typed_scalar(1, qdt)))
    low, high = lax.floor(pos), lax.ceil(pos)
    hi_w = lax.sub(pos, low)
    lo_w = lax.sub(core.typed_scalar(1, qdt), hi_w)
    last = lax.sub(count, core.typed_scalar(1, qdt))
    low = lax.max(core.typed_scalar(0, qdt), lax.min(low, last))
    high = lax.max(core.typed_scalar(0, qdt), lax.min(high, last))
    lo_v, hi_v = _pick(s, low), _pick(s, high)
    if method == "linear":
        return lax.add(lax.mul(lax.convert_element_type(lo_v, qdt), lo_w),
                       lax.mul(lax.convert_element_type(hi_v, qdt), hi_w))
    if method == "lower":
        return lo_v
    if method == "higher":
        return hi_v
    if method == "nearest":
        return lax.select(lax.le(hi_w, core.typed_scalar(0.5, qdt)), lo_v, hi_v)
    return lax.mul(lax.add(lo_v, hi_v), core.typed_scalar(0.5, dtype_of(lo_v)))


def _pick(s, pos):
    """s[..., pos] for float positions pos of shape q_shape + s.shape[:-1]."""
    idx = lax.convert_element_type(pos, dtypes.default_int_dtype())
    qn = np.ndim(pos) - (np.ndim(s) - 1)
    if qn == 0:
        return take_along_axis(s, shapes.expand_dims(idx, (np.ndim(idx),)), -1,
                               mode="clip")[..., 0]
    nq = np.shape(pos)[0]
    s_b = shapes.broadcast_in_dim(s, (nq, *np.shape(s)), tuple(range(1, np.ndim(s) + 1)))
    out = take_along_axis(s_b, shapes.expand_dims(idx, (np.ndim(idx),)), -1, mode="clip")
    return out[..., 0]


def _inverted_cdf(x, q, weights, squash_nans):
    if weights is None:
        weights = full_like(x, 1)
    if dtypes.is_complex(dtype_of(weights)):
        raise ValueError("Weights cannot be complex types.")
    s, w = lred.sort_key_val(x, lax.convert_element_type(weights, dtype_of(x)),
                             dimension=np.ndim(x) - 1)
    bad_w = lax.bitwise_or(lax.lt(w, full_like(w, 0)), _isnan(w))
    nan_data = _isnan(s)
    w = lax.select(lax.bitwise_or(bad_w, nan_data), full_like(w, 0), w)
    cw = red.cumsum(w, axis=-1)
    total = cw[..., -1]
    qdt = dtype_of(q)
    target = lax.mul(shapes.expand_dims(q, tuple(range(np.ndim(q), np.ndim(q) +
                                                        np.ndim(total)))),
                     lax.convert_element_type(total, qdt))
    below = lax.lt(lax.convert_element_type(cw, qdt),
                   shapes.expand_dims(target, (np.ndim(target),)))
    idx = red.sum(below, axis=-1, dtype=dtypes.default_int_dtype())
    n_valid = red.sum(lax.bitwise_not(nan_data), axis=-1, dtype=dtypes.default_int_dtype()) \
        if squash_nans else full(np.shape(total), np.shape(x)[-1],
                                     dtypes.default_int_dtype())
    idx = lax.max(core.typed_scalar(0, dtype_of(idx)),
                  lax.min(idx, lax.sub(n_valid, core.typed_scalar(1, dtype_of(idx)))))
    out = _pick(s, lax.convert_element_type(idx, qdt))
    any_bad = red.any(bad_w, axis=-1)
    force = lax.bitwise_or(any_bad, lax.eq(n_valid, core.typed_scalar(0, dtype_of(n_valid))))
    if not squash_nans:
        force = lax.bitwise_or(any_bad, red.any(nan_data, axis=-1))
    return where3(force, _NAN, out)


def _quantile_api(name, squash, scale=None, fixed_method=None):
    def f(a, q=None, axis=None, out=None, overwrite_input=False, method="linear",
          keepdims=False, *, weights=None):
        if overwrite_input or out is not None:
            raise ValueError(f"jax.numpy.{name} does not support overwrite_input=True or "
                             "out != None")
        if fixed_method is not None:
            q, method = 0.5, fixed_method
        a, q = ensure_arraylike(name, a, q)
        if weights is not None:
            weights = ensure_arraylike(name, weights)
        if scale is not None:
            (q,) = promote_dtypes_inexact(q)
            q = lax.div(q, core.typed_scalar(scale, dtype_of(q)))
        if isinstance(axis, list):
            axis = tuple(axis)
        return _quantile(a, q, weights, axis, method, bool(keepdims), squash)
    f.__name__ = f.__qualname__ = name
    return f


quantile = _quantile_api("quantile", False)
nanquantile = _quantile_api("nanquantile", True)
percentile = _quantile_api("percentile", False, 100)
nanpercentile = _quantile_api("nanpercentile", True, 100)


@jit_like_jax("median", static_argnames=('axis', 'overwrite_input', 'keepdims'))
def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    return _quantile_api("median", False, fixed_method="midpoint")(
        a, None, axis, out, overwrite_input, keepdims=keepdims)


@jit_like_jax("nanmedian", static_argnames=('axis', 'overwrite_input', 'keepdims'))
def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    return _quantile_api("nanmedian", True, fixed_method="midpoint")(
        a, None, axis, out, overwrite_input, keepdims=keepdims)


# ----------------------------------------------------------------------------------------
# Covariance, counting and histograms
# ----------------------------------------------------------------------------------------


@jit_like_jax("cov", static_argnames=('rowvar', 'bias', 'ddof', 'dtype'))
def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None,
        dtype=None):
    from didax._src.numpy.util import promote_args_inexact  # noqa: PLC0415

    if y is not None:
        m, y = promote_args_inexact("cov", m, y)
        if np.ndim(y) > 2:
            raise ValueError("y has more than 2 dimensions")
    else:
        (m,) = promote_args_inexact("cov", m)
    if np.ndim(m) > 2:
        raise ValueError("m has more than 2 dimensions")
    if dtype is not None and not dtypes.is_inexact(dtype):
        raise ValueError(f"cov: dtype must be a subclass of float or complex; got "
                         f"dtype={dtype}")
    X = atleast_2d(m)
    if not rowvar and np.ndim(m) != 1:
        X = transpose(X)
    if np.shape(X)[0] == 0:
        return reshape(zeros((0,), dtype_of(X)), (0, 0))
    if y is not None:
        Y = atleast_2d(y)
        if not rowvar and np.shape(Y)[0] != 1:
            Y = transpose(Y)
        X = concatenate([X, Y], axis=0)
    if np.shape(X)[1] == 0:
        shp = () if np.shape(X)[0] == 1 else (np.shape(X)[0],) * 2
        return full(shp, np.nan, dtype_of(X))
    if ddof is None:
        ddof = 1 if not bias else 0
    w, aw = _cov_weights(X, fweights, aweights)
    return _cov(X, w, aw, ddof, dtype)


def _cov_weights(X, fweights, aweights):
    """(the combined weights or None, the checked aweights or None)."""
    w, aw = None, None
    for name, wt in (("fweights", fweights), ("aweights", aweights)):
        if wt is None:
            continue
        wt = ensure_arraylike("cov", wt)
        if np.ndim(wt) > 1:
            raise RuntimeError(f"cannot handle multidimensional {name}")
        if np.shape(wt)[0] != np.shape(X)[1]:
            raise RuntimeError(f"incompatible numbers of samples and {name}")
        if name == "fweights" and not dtypes.is_int(dtype_of(wt)):
            raise TypeError("fweights must be integer.")
        wt = lax.abs(wt)
        if name == "aweights":
            aw = wt
        w = wt if w is None else ufuncs.multiply(w, wt)
    return w, aw


def _cov(X, w, aw, ddof, dtype):
    from didax._src.numpy.products import dot  # noqa: PLC0415
    from didax._src.numpy.ufuncs_math import conj  # noqa: PLC0415

    if w is None:
        avg = red.mean(X, axis=1)
        fact = core.typed_scalar(np.shape(X)[1] - ddof, dtype_of(avg))
    else:
        avg, w_sum = red.average(X, axis=1, weights=w, returned=True)
        w_sum = w_sum[0]
        if ddof == 0:
            fact = w_sum
        elif aw is None:
            fact = ufuncs.subtract(w_sum, ddof)
        else:
            corr = ufuncs.true_divide(red.sum(ufuncs.multiply(w, aw)), w_sum)
            fact = ufuncs.subtract(w_sum, ufuncs.multiply(ddof, corr))
    X = ufuncs.subtract(X, shapes.expand_dims(avg, (1,)))
    X_T = transpose(X) if w is None else transpose(ufuncs.multiply(X, w))
    out = ufuncs.true_divide(dot(X, conj(X_T)), fact)
    out = shapes.squeeze(out, tuple(i for i, d in enumerate(np.shape(out)) if d == 1))
    return out if dtype is None else lax.convert_element_type(out, dtype)


@jit_like_jax("corrcoef", static_argnames=('rowvar', 'dtype'))
def corrcoef(x, y=None, rowvar=True, dtype=None):
    from didax._src.numpy.ufuncs_math import real, sqrt  # noqa: PLC0415

    c = cov(x, y, rowvar, dtype=dtype)
    if np.ndim(c) == 0:
        return lax.div(c, c)
    from didax._src.numpy.products import diagonal  # noqa: PLC0415

    d = diagonal(c)
    stddev = sqrt(real(d))
    c = lax.div(c, shapes.expand_dims(stddev, (1,)))
    c = lax.div(c, shapes.expand_dims(stddev, (0,)))
    if dtypes.is_complex(dtype_of(c)):
        from didax._src.numpy.lax_numpy import clip  # noqa: PLC0415

        return lax.complex(clip(real(c), -1, 1), clip(lax.imag(c), -1, 1))
    from didax._src.numpy.lax_numpy import clip  # noqa: PLC0415

    return clip(c, -1, 1)


def bincount(x, weights=None, minlength=0, *, length=None):
    x = ensure_arraylike("bincount", x)
    if dtype_of(x) == np.bool_:
        x = lax.convert_element_type(x, np.int32)
    if not dtypes.is_int(dtype_of(x)):
        raise TypeError(f"x argument to bincount must have an integer type; got "
                        f"{dtype_of(x)}")
    if np.ndim(x) != 1:
        raise ValueError("only 1-dimensional input supported.")
    minlength = core.concrete_or_error(operator.index, minlength, "The error occurred "
                                       "because of argument 'minlength' of jnp.bincount.")
    if length is None:
        xv = core.concrete_or_error(np.asarray, x, "The error occurred because of argument "
                                    "'x' of jnp.bincount. To avoid this error, pass a static "
                                    "`length` argument.")
        length = max(minlength, xv.size and int(max(0, xv.max())) + 1)
    else:
        length = core.concrete_or_error(operator.index, length, "The error occurred because"
                                        " of argument 'length' of jnp.bincount.")
    if weights is None:
        weights = np.array(1, dtypes.default_int_dtype())
    else:
        weights = ensure_arraylike("bincount", weights)
        if np.shape(weights) != np.shape(x):
            raise ValueError("type of weights must match type of x.")
    out = zeros(length, dtype_of(weights))
    idx = lax.max(x, core.typed_scalar(0, dtype_of(x)))
    return out.at[idx].add(weights, mode="drop")


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002
    if isinstance(bins, str):
        raise NotImplementedError("string values for `bins` not implemented.")
    a, _ = ensure_arraylike("histogram_bin_edges", a, bins)
    dt = dtypes.canonicalize_dtype(dtypes.to_inexact_dtype(dtype_of(a)))
    if np.ndim(bins) == 1:
        return lax.convert_element_type(ensure_arraylike("histogram_bin_edges", bins), dt)
    nbins = core.concrete_or_error(operator.index, bins,
                                   "bins argument of histogram_bin_edges")
    if range is None:
        lo, hi = red.min(a), red.max(a)
    else:
        lo, hi = (lax.convert_element_type(ensure_arraylike("histogram_bin_edges", r), dt)
                  for r in range)
    lo, hi = lax.convert_element_type(lo, dt), lax.convert_element_type(hi, dt)
    same = lax.eq(lo, hi)
    lo = where3(same, lax.sub(lo, core.typed_scalar(0.5, dt)), lo)
    hi = where3(same, lax.add(hi, core.typed_scalar(0.5, dt)), hi)
    return linspace(lo, hi, nbins + 1, dtype=dt)


def histogram(a, bins=10, range=None, weights=None, density=None):  # noqa: A002
    from didax._src.numpy.sorting import searchsorted  # noqa: PLC0415

    if weights is None:
        a, _ = ensure_arraylike("histogram", a, bins)
        (a,) = promote_dtypes_inexact(a)
        weights = full_like(a, 1)
    else:
        a, _, weights = ensure_arraylike("histogram", a, bins, weights)
        if np.shape(a) != np.shape(weights):
            raise ValueError("weights should have the same shape as a.")
        a, weights = promote_dtypes_inexact(a, weights)
    edges = histogram_bin_edges(a, bins, range, weights)
    a, weights = ravel(a), ravel(weights)
    idx = searchsorted(edges, a, side="right")
    n = np.shape(edges)[0]
    idx = where3(lax.eq(a, edges[-1]), n - 1, idx)
    counts = zeros(n, dtype_of(weights)).at[idx].add(weights)[1:]
    if density:
        widths = lax.sub(edges[1:], edges[:-1])
        counts = lax.div(lax.div(counts, widths), red.sum(counts))
    return counts, edges




# ----------------------------------------------------------------------------------------
# log-sum-exp (jax.scipy.special.logsumexp, jax.nn.logsumexp, jnp.logaddexp.reduce)
# ----------------------------------------------------------------------------------------


def _logsumexp_impl(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    """log(sum(b * exp(a))) with the maximum factored out (and held constant for
    differentiation), as JAX computes it."""
    from didax._src.numpy.ufuncs_math import isfinite  # noqa: PLC0415

    a = ensure_arraylike("logsumexp", a)
    if where is not None:
        where = ensure_arraylike("logsumexp", where)
        a = where3(where, a, 0)
    if b is not None:
        a, b = promote_dtypes_inexact(a, ensure_arraylike("logsumexp", b))
        a = where3(lax.ne(b, core.typed_scalar(0, dtype_of(b))), a, -np.inf)
    else:
        (a,) = promote_dtypes_inexact(a)
    dims = canonicalize_axes(red._static_axis(axis, "logsumexp"), np.ndim(a))
    re = lax.real(a) if dtypes.is_complex(dtype_of(a)) else a
    amax = red.max(re, axis=dims, keepdims=keepdims, where=where, initial=-np.inf)
    amax = lax.stop_gradient(lax.select(isfinite(amax), amax, full_like(amax, 0)))
    amax_dims = amax if keepdims else shapes.expand_dims(amax, dims)
    exp_a = lax.exp(lax.sub(a, lax.convert_element_type(amax_dims, dtype_of(a))))
    if b is not None:
        exp_a = lax.mul(exp_a, b)
    sumexp = red.sum(exp_a, axis=dims, keepdims=keepdims, where=where)
    sign = lax.sign(sumexp)
    if return_sign or not dtypes.is_complex(dtype_of(a)):
        sumexp = lax.abs(sumexp)
    out = lax.add(lax.log(sumexp), lax.convert_element_type(amax, dtype_of(sumexp)))
    if return_sign:
        return out, sign
    if b is not None and not dtypes.is_complex(dtype_of(out)):
        out = where3(lax.lt(sign, core.typed_scalar(0, dtype_of(sign))),
                     np.array(np.nan, dtype_of(out)), out)
    return out


def histogramdd(sample, bins=10, range=None, weights=None, density=None):  # noqa: A002
    from didax._src.numpy.index_tricks import ix_, ravel_multi_index  # noqa: PLC0415
    from didax._src.numpy.sorting import searchsorted  # noqa: PLC0415

    if weights is None:
        (sample,) = promote_dtypes_inexact(ensure_arraylike("histogramdd", sample))
    else:
        sample, weights = ensure_arraylike("histogramdd", sample, weights)
        if np.shape(weights) != np.shape(sample)[:1]:
            raise ValueError("should have one weight for each sample.")
        sample, weights = promote_dtypes_inexact(sample, weights)
    n, d = np.shape(sample)
    if range is not None and (len(range) != d or any(
            r is not None and np.shape(r)[0] != 2 for r in range)):
        raise ValueError(f"For sample.shape={(n, d)}, range must be a sequence of {d} pairs "
                         f"or Nones; got range={range}")
    try:
        per_dim = list(bins)
    except TypeError:
        per_dim = [bins] * d
    else:
        if len(per_dim) != d:
            raise ValueError("should be a bin for each dimension.")
    idx, edges = [], []
    for i in builtins.range(d):
        col = sample[:, i]
        e = histogram_bin_edges(col, per_dim[i], None if range is None else range[i])
        k = searchsorted(e, col, side="right")
        idx.append(where3(lax.eq(col, e[-1]), ufuncs.subtract(k, 1), k))
        edges.append(e)
    nbins = tuple(np.shape(e)[0] + 1 for e in edges)
    flat = ravel_multi_index(tuple(idx), nbins, mode="clip")
    hist = reshape(bincount(flat, weights, length=math.prod(nbins)), nbins)
    hist = hist[(slice(1, -1),) * d]
    if density:
        hist = lax.convert_element_type(hist, dtype_of(sample))
        hist = ufuncs.true_divide(hist, red.sum(hist))
        for norm in ix_(*[lax.sub(e[1:], e[:-1]) for e in edges]):
            hist = ufuncs.true_divide(hist, norm)
    return hist, edges




def histogram2d(x, y, bins=10, range=None, weights=None, density=None):  # noqa: A002
    x, y = ensure_arraylike("histogram2d", x, y)
    try:
        n = len(bins)
    except TypeError:
        n = 1
    if n not in (1, 2):
        bins = [bins, bins]
    from didax._src.numpy.manipulation import stack  # noqa: PLC0415

    hist, edges = histogramdd(transpose(stack([x, y])), bins, range, weights, density)
    return hist, edges[0], edges[1]
