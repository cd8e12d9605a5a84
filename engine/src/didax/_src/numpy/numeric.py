"""Numerical helpers of didax.numpy: diff, ediff1d, gradient, trapezoid, interp, unwrap,
1-D convolve/correlate (one lax.conv_general_dilated, as in JAX), vander,
trim_zeros, and the window functions bartlett/blackman/hamming/hanning/kaiser.

May import core, dtypes, array, didax.lax and the numpy implementation modules below
(util, array_creation, manipulation, ufuncs, ufuncs_math, reductions, indexing_ops,
sorting, lax_numpy).
"""

from __future__ import annotations

import operator

import numpy as np

from didax._src import core, dtypes
from didax._src.lax import convolution, lax, shapes
from didax._src.lax import reductions as lred
from didax._src.numpy import reductions as red
from didax._src.numpy import ufuncs, ufuncs_math
from didax._src.numpy.array_creation import arange, asarray
from didax._src.numpy.indexing_ops import take
from didax._src.numpy.manipulation import concatenate, flip, moveaxis, ravel, reshape
from didax._src.numpy.util import (
    broadcast_to,
    canonicalize_axis,
    convert,
    dtype_of,
    ensure_arraylike,
    jit_like_jax,
    promote_dtypes,
    promote_dtypes_inexact,
    where3,
)


@jit_like_jax("diff", static_argnames=('n', 'axis'))
def diff(a, n=1, axis=-1, prepend=None, append=None):
    arr = ensure_arraylike("diff", a)
    n = core.concrete_or_error(operator.index, n, "'n' argument of jnp.diff")
    axis = core.concrete_or_error(operator.index, axis, "'axis' argument of jnp.diff")
    if n == 0:
        return arr
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    if np.ndim(arr) == 0:
        raise ValueError(f"diff requires input that is at least one dimensional; got {a}")
    axis = canonicalize_axis(axis, np.ndim(arr))
    parts = [_diff_edge(prepend, arr, axis), arr, _diff_edge(append, arr, axis)]
    parts = [p for p in parts if p is not None]
    if len(parts) > 1:
        arr = concatenate(parts, axis)
    for _ in range(n):
        size = np.shape(arr)[axis]
        hi = shapes.slice_in_dim(arr, 1, size, axis=axis)
        lo = shapes.slice_in_dim(arr, 0, size - 1, axis=axis)
        arr = ufuncs.not_equal(hi, lo) if dtype_of(arr) == np.bool_ else \
            ufuncs.subtract(hi, lo)
    return arr


def _diff_edge(extra, arr, axis):
    if extra is None:
        return None
    extra = ensure_arraylike("diff", extra)
    if not np.ndim(extra):
        shp = list(np.shape(arr))
        shp[axis] = 1
        extra = broadcast_to(extra, tuple(shp))
    return extra


def ediff1d(ary, to_end=None, to_begin=None):
    arr = ravel(ensure_arraylike("ediff1d", ary))
    n = np.shape(arr)[0]
    result = lax.sub(shapes.slice(arr, (1,), (max(n, 1),)), shapes.slice(arr, (0,),
                                                                        (max(n - 1, 0),)))
    if to_begin is not None:
        to_begin = ravel(lax.convert_element_type(ensure_arraylike("ediff1d", to_begin),
                                                  dtype_of(arr)))
        result = concatenate([to_begin, result])
    if to_end is not None:
        to_end = ravel(lax.convert_element_type(ensure_arraylike("ediff1d", to_end),
                                                dtype_of(arr)))
        result = concatenate([result, to_end])
    return result


def _edge_slices(a, axis):
    def sl(lo, hi):
        n = np.shape(a)[axis]
        lo, hi = lo % n if lo < 0 else lo, (n if hi is None else hi % n if hi < 0 else hi)
        return shapes.slice_in_dim(a, lo, hi, axis=axis)
    return sl


def _gradient_axis(a, h, axis):
    sl = _edge_slices(a, axis)
    upper = ufuncs.subtract(sl(1, 2), sl(0, 1))
    lower = ufuncs.subtract(sl(-1, None), sl(-2, -1))
    if np.ndim(h) == 0:
        inner = ufuncs.true_divide(ufuncs.multiply(ufuncs.subtract(sl(2, None), sl(0, -2)),
                                                   0.5), h)
        lower, upper = ufuncs.true_divide(lower, h), ufuncs.true_divide(upper, h)
    elif np.ndim(h) == 1:
        if np.shape(h)[0] != np.shape(a)[axis]:
            raise ValueError("Spacing arrays must have the same length as the dimension "
                             "along which the gradient is calculated.")
        hs = [1] * np.ndim(a)
        hs[axis] = np.shape(h)[0]
        hx = _edge_slices(reshape(h, hs), axis)
        upper = ufuncs.true_divide(upper, ufuncs.subtract(hx(1, 2), hx(0, 1)))
        lower = ufuncs.true_divide(lower, ufuncs.subtract(hx(-1, None), hx(-2, -1)))
        d1 = ufuncs.subtract(hx(1, -1), hx(0, -2))
        d2 = ufuncs.subtract(hx(2, None), hx(1, -1))
        m, s = ufuncs.multiply, ufuncs.add
        ca = ufuncs.true_divide(ufuncs.negative(d2), m(d1, s(d1, d2)))
        cb = ufuncs.true_divide(ufuncs.subtract(d2, d1), m(d1, d2))
        cc = ufuncs.true_divide(d1, m(d2, s(d1, d2)))
        inner = s(s(m(ca, sl(0, -2)), m(cb, sl(1, -1))), m(cc, sl(2, None)))
    else:
        raise ValueError("Spacing arrays must be 1D arrays or scalars.")
    return concatenate([upper, inner, lower], axis)


@jit_like_jax("gradient", static_argnames=('axis', 'edge_order'))
def gradient(f, *varargs, axis=None, edge_order=None):
    if edge_order is not None:
        raise NotImplementedError("The 'edge_order' argument to jnp.gradient is not "
                                  "supported.")
    a, *spacing = promote_dtypes_inexact(ensure_arraylike("gradient", f), *varargs)
    axes = tuple(range(np.ndim(a))) if axis is None else tuple(
        canonicalize_axis(i, np.ndim(a)) for i in (axis if isinstance(axis, (tuple, list))
                                                   else (axis,)))
    if not axes:
        return []
    if min(np.shape(a)[i] for i in axes) < 2:
        raise ValueError("Shape of array too small to calculate a numerical gradient, at "
                         "least 2 elements are required.")
    if not spacing:
        dx = [1.0] * len(axes)
    elif len(spacing) == 1:
        dx = spacing * len(axes)
    elif len(spacing) == len(axes):
        dx = list(spacing)
    else:
        raise TypeError(f"Invalid number of spacing arguments {len(spacing)} for "
                        f"axis={axis}")
    grads = [_gradient_axis(a, h, ax) for ax, h in zip(axes, dx)]
    return grads[0] if len(axes) == 1 else grads


@jit_like_jax("trapezoid", static_argnames=('axis',))
def trapezoid(y, x=None, dx=1.0, axis=-1):
    if x is None:
        (y,) = promote_dtypes_inexact(ensure_arraylike("trapezoid", y))
        d = asarray(dx)
        if np.ndim(d) > 0:
            d = moveaxis(shapes.expand_dims(d, tuple(range(np.ndim(y) - np.ndim(d)))),
                         axis, -1)
    else:
        y, x = promote_dtypes_inexact(*ensure_arraylike("trapezoid", y, x))
        d = diff(x) if np.ndim(x) == 1 else moveaxis(diff(x, axis=axis), axis, -1)
    y = moveaxis(y, axis, -1)
    n = np.shape(y)[-1]
    if np.ndim(d) == 0 or np.shape(d)[-1] == 1:
        d0 = d if np.ndim(d) == 0 else d[..., 0]
        ends = ufuncs.add(y[..., 0], y[..., n - 1])
        return ufuncs.multiply(d0, ufuncs.subtract(red.sum(y, -1),
                                                   ufuncs.multiply(0.5, ends)))
    mids = ufuncs.add(y[..., 1:], y[..., :-1])
    return ufuncs.multiply(0.5, red.sum(ufuncs.multiply(d, mids), -1))


def interp(x, xp, fp, left=None, right=None, period=None):
    static = tuple(n for n, v in (("left", left), ("right", right), ("period", period))
                   if v is None or isinstance(v, str))
    return _interp_jit(static)(x, xp, fp, left, right, period)


_INTERP_CACHE: dict = {}


def _interp_jit(static):
    fn = _INTERP_CACHE.get(static)
    if fn is None:
        fn = _INTERP_CACHE[static] = jit_like_jax("_interp", static_argnames=static)(
            _interp)
    return fn


def _interp(x, xp, fp, left, right, period):
    x, xp, fp = ensure_arraylike("interp", x, xp, fp)
    if np.shape(xp) != np.shape(fp) or np.ndim(xp) != 1:
        raise ValueError("xp and fp must be one-dimensional arrays of equal size")
    x, xp = promote_dtypes_inexact(x, xp)
    (fp,) = promote_dtypes_inexact(fp)
    extrap = []
    for name, v in (("left", left), ("right", right)):
        if isinstance(v, str) and v != "extrapolate":
            raise ValueError(f"the only valid string value of `{name}` is 'extrapolate', "
                             f"but got: {v!r}")
        extrap.append(isinstance(v, str))
    if dtypes.is_complex(dtype_of(x)):
        raise ValueError("jnp.interp: complex x values not supported.")
    if period is not None:
        if np.ndim(period) != 0:
            raise ValueError(f"period must be a scalar; got {period}")
        period = ufuncs.absolute(period)
        x, xp = ufuncs.remainder(x, period), ufuncs.remainder(xp, period)
        xp, fp = lred.sort_key_val(xp, fp)
        n = np.shape(xp)[0]
        xp = concatenate([ufuncs.subtract(xp[n - 1:], period), xp,
                          ufuncs.add(xp[:1], period)])
        fp = concatenate([fp[n - 1:], fp, fp[:1]])
    return _interp_core(x, xp, fp, left, right, period, extrap)


def _interp_core(x, xp, fp, left, right, period, extrap):
    from didax._src.numpy.lax_numpy import clip  # noqa: PLC0415
    from didax._src.numpy.sorting import searchsorted  # noqa: PLC0415

    n = np.shape(xp)[0]
    i = clip(searchsorted(xp, x, side="right"), 1, n - 1)
    im1 = ufuncs.subtract(i, 1)
    f_i, f_im1 = take(fp, i, mode="clip"), take(fp, im1, mode="clip")
    x_i, x_im1 = take(xp, i, mode="clip"), take(xp, im1, mode="clip")
    df, dx = ufuncs.subtract(f_i, f_im1), ufuncs.subtract(x_i, x_im1)
    delta = ufuncs.subtract(x, x_im1)
    eps = np.spacing(np.finfo(dtype_of(xp)).eps)
    dx0 = lax.le(lax.abs(dx), core.typed_scalar(float(eps), dtype_of(dx)))
    f = where3(dx0, f_im1, ufuncs.add(f_im1, ufuncs.multiply(
        ufuncs.true_divide(delta, where3(dx0, 1, dx)), df)))
    if not extrap[0] and period is None:
        f = where3(ufuncs.less(x, xp[0]), fp[0] if left is None else left, f)
    if not extrap[1] and period is None:
        f = where3(ufuncs.greater(x, xp[n - 1]), fp[n - 1] if right is None else right, f)
    return f


@jit_like_jax("unwrap", static_argnames=('axis',))
def unwrap(p, discont=None, axis=-1, period=2 * np.pi):
    p = ensure_arraylike("unwrap", p)
    p, period = promote_dtypes(p, period)
    if dtypes.is_complex(dtype_of(p)):
        raise ValueError("jnp.unwrap does not support complex inputs.")
    axis = canonicalize_axis(axis, np.ndim(p))
    if np.shape(p)[axis] == 0:
        return p
    if discont is None:
        discont = ufuncs.true_divide(period, 2)
    interval = ufuncs.floor_divide(period, 2) if dtypes.is_int(dtype_of(p)) else \
        ufuncs.true_divide(period, 2)
    dd = diff(p, axis=axis)
    ddmod = ufuncs.subtract(ufuncs.remainder(ufuncs.add(dd, interval), period), interval)
    ddmod = where3(ufuncs.logical_and(ufuncs.equal(ddmod, ufuncs.negative(interval)),
                                      ufuncs.greater(dd, 0)), interval, ddmod)
    correct = where3(ufuncs.less(ufuncs.absolute(dd), discont), 0,
                     ufuncs.subtract(ddmod, dd))
    n = np.shape(p)[axis]
    head = shapes.slice_in_dim(p, 0, 1, axis=axis)
    tail = ufuncs.add(shapes.slice_in_dim(p, 1, n, axis=axis), red.cumsum(correct, axis))
    return concatenate([head, tail], axis)


# ----------------------------------------------------------------------------------------
# convolve / correlate
# ----------------------------------------------------------------------------------------


@jit_like_jax("_conv", static_argnames=("mode", "op", "precision", "preferred_element_type"))
def _conv(x, y, mode, op, precision, preferred_element_type):
    """1-D convolution/correlation as one `conv_general_dilated` (JAX's formulation): the
    longer operand slides, the kernel is flipped (convolve) or conjugated (correlate)."""
    if np.ndim(x) != 1 or np.ndim(y) != 1:
        raise ValueError(f"{op}() only support 1-dimensional inputs.")
    if preferred_element_type is None:
        x, y = promote_dtypes_inexact(x, y)
    else:
        x, y = promote_dtypes(x, y)
    if not np.size(x) or not np.size(y):
        raise ValueError(f"{op}: inputs cannot be empty, got shapes {np.shape(x)} and "
                         f"{np.shape(y)}.")
    reverse_out = False
    if op == "correlate":
        y = ufuncs_math.conj(y)
        if np.shape(x)[0] < np.shape(y)[0]:
            x, y, reverse_out = y, x, True
    else:
        if np.shape(x)[0] < np.shape(y)[0]:
            x, y = y, x
        y = flip(y)
    m = np.shape(y)[0]
    pads = {"valid": (0, 0), "same": (m // 2, m - m // 2 - 1), "full": (m - 1, m - 1)}
    if mode not in pads:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    out = convolution.conv_general_dilated(
        x[None, None, :], y[None, None, :], (1,), [pads[mode]], precision=precision,
        preferred_element_type=preferred_element_type)
    return out[0, 0, ::-1] if reverse_out else out[0, 0, :]


@jit_like_jax("convolve", static_argnames=('mode', 'precision', 'preferred_element_type'))
def convolve(a, v, mode="full", *, precision=None, preferred_element_type=None):
    a, v = ensure_arraylike("convolve", a, v)
    return _conv(a, v, mode, "convolve", precision, preferred_element_type)


@jit_like_jax("correlate", static_argnames=('mode', 'precision', 'preferred_element_type'))
def correlate(a, v, mode="valid", *, precision=None, preferred_element_type=None):
    a, v = ensure_arraylike("correlate", a, v)
    return _conv(a, v, mode, "correlate", precision, preferred_element_type)


@jit_like_jax("vander", static_argnames=('N', 'increasing'))
def vander(x, N=None, increasing=False):
    x = ensure_arraylike("vander", x)
    if np.ndim(x) != 1:
        raise ValueError("x must be a one-dimensional array")
    N = np.shape(x)[0] if N is None else core.concrete_or_error(
        operator.index, N, "'N' argument of jnp.vander()")
    if N < 0:
        raise ValueError("N must be nonnegative")
    powers = arange(N, dtype=dtype_of(x))
    if not increasing:
        powers = ufuncs.subtract(N - 1, powers)
    return ufuncs.power(shapes.expand_dims(x, (1,)), shapes.expand_dims(powers, (0,)))


def trim_zeros(filt, trim="fb", axis=None):
    """Leading/trailing all-zero slices removed along each axis in `axis` (all axes when
    None), as JAX 0.10: a slice is kept from the first to the last one with a nonzero."""
    filt = ensure_arraylike("trim_zeros", filt)
    vals = core.concrete_or_error(np.asarray, filt, "Error arose in the `filt` argument of "
                                  "trim_zeros()")
    axes = range(vals.ndim) if axis is None else (axis if isinstance(axis, (tuple, list))
                                                   else (axis,))
    axes = {operator.index(a) % max(vals.ndim, 1) for a in axes}
    front, back = "f" in trim.lower(), "b" in trim.lower()
    if not axes or not (front or back):
        return filt
    index = []
    for ax in range(vals.ndim):
        if ax not in axes:
            index.append(slice(None))
            continue
        nz = np.nonzero(vals.any(axis=tuple(i for i in range(vals.ndim) if i != ax)))[0]
        if not nz.size:
            index.append(slice(0, 0))
            continue
        index.append(slice(int(nz[0]) if front else None, int(nz[-1]) + 1 if back else None))
    return filt[tuple(index)]


# ----------------------------------------------------------------------------------------
# Window functions
# ----------------------------------------------------------------------------------------


def _window_n(M, name):
    return core.concrete_or_error(operator.index, M, f"M argument of jnp.{name}")


def _cos_window(M, name, coeffs):
    M = _window_n(M, name)
    dt = dtypes.default_float_dtype()
    if M <= 1:
        return lax.full((M,), 1, dt)
    n = arange(M, dtype=dt)
    out = None
    for k, c in enumerate(coeffs):
        term = ufuncs.multiply(c, ufuncs_math.cos(ufuncs.true_divide(
            ufuncs.multiply(2.0 * np.pi * k, n), M - 1))) if k else \
            lax.full((M,), c, dt)
        out = term if out is None else ufuncs.add(out, term)
    return out


def hanning(M):
    return _cos_window(M, "hanning", (0.5, -0.5))


def hamming(M):
    return _cos_window(M, "hamming", (0.54, -0.46))


def blackman(M):
    return _cos_window(M, "blackman", (0.42, -0.5, 0.08))


def bartlett(M):
    M = _window_n(M, "bartlett")
    dt = dtypes.default_float_dtype()
    if M <= 1:
        return lax.full((M,), 1, dt)
    n = arange(M, dtype=dt)
    half = (M - 1) / 2
    return ufuncs.subtract(1, ufuncs.absolute(ufuncs.true_divide(ufuncs.subtract(n, half),
                                                                 half)))


def kaiser(M, beta):
    M = _window_n(M, "kaiser")
    dt = dtypes.default_float_dtype()
    if M <= 1:
        return lax.full((M,), 1, dt)
    beta = convert(ensure_arraylike("kaiser", beta), dt)
    n = arange(M, dtype=dt)
    alpha = (M - 1) / 2
    r = ufuncs.true_divide(ufuncs.subtract(n, alpha), alpha)
    arg = ufuncs.multiply(beta, ufuncs_math.sqrt(ufuncs.subtract(1, ufuncs.square(r))))
    return ufuncs.true_divide(ufuncs_math.i0(arg), ufuncs_math.i0(beta))

