"""Polynomials of didax.numpy (coefficients highest power first, as NumPy): polyval
(Horner's rule, unrolled), polyadd/polysub/polymul/polydiv, polyder/polyint, poly (from
roots), polyfit (least squares). `roots` and the matrix form of `poly` need eigenvalues,
which didax.numpy.linalg does not provide; they raise NotImplementedError.

May import core, dtypes, array, didax.lax and numpy.util/array_creation/manipulation/
ufuncs/reductions/numeric.
"""

from __future__ import annotations

import operator

import numpy as np

from didax._src import core, dtypes
from didax._src.lax import lax, shapes
from didax._src.lax.reductions import sort_key_val
from didax._src.numpy import reductions as red
from didax._src.numpy import ufuncs, ufuncs_math
from didax._src.numpy.array_creation import arange, array, ones, zeros
from didax._src.numpy.manipulation import atleast_1d, concatenate, roll
from didax._src.numpy.numeric import convolve, trim_zeros
from didax._src.numpy.util import (
    broadcast_shapes_checked,
    dtype_of,
    ensure_arraylike,
    full_like,
    jit_like_jax,
    promote_dtypes,
    promote_dtypes_inexact,
    to_array,
)


@jit_like_jax("polyval", static_argnames=("unroll",))
def _polyval(p, x, unroll=16):
    p, x = promote_dtypes(p, x)
    shape = broadcast_shapes_checked(np.shape(p)[1:], np.shape(x))
    y = full_like(x, 0, shape=shape)
    for k in range(np.shape(p)[0]):
        y = ufuncs.add(ufuncs.multiply(y, x), p[k])
    return y


def polyval(p, x, *, unroll=16):
    p, x = ensure_arraylike("polyval", p, x)
    return _polyval(p, x, unroll)


def _add_tail(long, short):
    n = np.shape(short)[0]
    head = shapes.slice_in_dim(long, 0, np.shape(long)[0] - n, axis=0)
    tail = shapes.slice_in_dim(long, np.shape(long)[0] - n, np.shape(long)[0], axis=0)
    return concatenate([head, ufuncs.add(tail, short)])


@jit_like_jax("polyadd")
def polyadd(a1, a2):
    a1, a2 = promote_dtypes(*ensure_arraylike("polyadd", a1, a2))
    if np.shape(a2)[0] <= np.shape(a1)[0]:
        return _add_tail(a1, a2)
    return _add_tail(a2, a1)


@jit_like_jax("polysub")
def polysub(a1, a2):
    a1, a2 = promote_dtypes(*ensure_arraylike("polysub", a1, a2))
    return polyadd(a1, ufuncs.negative(a2))


def polymul(a1, a2, *, trim_leading_zeros=False):
    a1, a2 = promote_dtypes_inexact(*ensure_arraylike("polymul", a1, a2))
    if trim_leading_zeros and (np.shape(a1)[0] > 1 or np.shape(a2)[0] > 1):
        a1, a2 = trim_zeros(a1, trim="f"), trim_zeros(a2, trim="f")
    if np.shape(a1)[0] == 0:
        a1 = zeros(1, dtype_of(a2))
    if np.shape(a2)[0] == 0:
        a2 = zeros(1, dtype_of(a1))
    return convolve(a1, a2, mode="full")


def polydiv(u, v, *, trim_leading_zeros=False):
    u, v = promote_dtypes_inexact(*ensure_arraylike("polydiv", u, v))
    m, n = np.shape(u)[0] - 1, np.shape(v)[0] - 1
    scale = ufuncs.true_divide(1.0, v[0])
    q = []
    for k in range(0, m - n + 1):
        d = ufuncs.multiply(scale, u[k])
        q.append(d)
        seg = ufuncs.subtract(u[k:k + n + 1], ufuncs.multiply(d, v))
        u = concatenate([u[:k], seg, u[k + n + 1:]])
    quot = array(q) if q else zeros(1, dtype_of(u))
    if trim_leading_zeros:
        tol = float(np.sqrt(np.finfo(dtype_of(u)).eps))
        vals = np.asarray(core.concrete_or_error(None, u, "polydiv trim_leading_zeros"))
        big = np.nonzero(np.abs(vals) >= tol)[0]
        u = u[int(big[0]):] if big.size else u[:0]
    return quot, u


@jit_like_jax("polyder", static_argnames=("m",))
def _polyder(p, m):
    (p,) = promote_dtypes_inexact(p)
    if m < 0:
        raise ValueError("Order of derivative must be positive")
    if m == 0:
        return p
    n = np.shape(p)[0]
    grid = ufuncs.subtract(shapes.expand_dims(arange(m, n, dtype=dtype_of(p)), (0,)),
                           shapes.expand_dims(arange(m, dtype=dtype_of(p)), (1,)))
    coeff = shapes.rev(red.prod(grid, axis=0), (0,))
    return ufuncs.multiply(p[:n - m], coeff)


def polyder(p, m=1):
    p = ensure_arraylike("polyder", p)
    return _polyder(p, core.concrete_or_error(operator.index, m,
                                              "'m' argument of jnp.polyder"))


@jit_like_jax("polyint", static_argnames=("m",))
def _polyint(p, m, k):
    p, k = promote_dtypes_inexact(p, k)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    k = atleast_1d(k)
    if np.shape(k)[0] == 1:
        k = lax.broadcast_in_dim(k[0], (m,), ())
    if np.shape(k) != (m,):
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or m.")
    if m == 0:
        return p
    n = np.shape(p)[0]
    grid = ufuncs.subtract(shapes.expand_dims(arange(n + m, dtype=dtype_of(p)), (0,)),
                           shapes.expand_dims(arange(m, dtype=dtype_of(p)), (1,)))
    coeff = shapes.rev(red.prod(ufuncs.maximum(1, grid), axis=0), (0,))
    return ufuncs.true_divide(concatenate([p, k]), coeff)


def polyint(p, m=1, k=None):
    m = core.concrete_or_error(operator.index, m, "'m' argument of jnp.polyint")
    p, k = ensure_arraylike("polyint", p, 0 if k is None else k)
    return _polyint(p, m, k)


@jit_like_jax("poly")
def poly(seq_of_zeros):
    (z,) = promote_dtypes_inexact(ensure_arraylike("poly", seq_of_zeros))
    z = atleast_1d(z)
    sh = np.shape(z)
    if len(sh) == 2 and sh[0] == sh[1] and sh[0] != 0:
        from didax._src.numpy.linalg_eig import eigvals  # noqa: PLC0415 - above this module

        z = eigvals(z)  # the characteristic polynomial's zeros
    if np.ndim(z) != 1:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    dt = dtype_of(z)
    if np.shape(z)[0] == 0:
        return to_array(lax.full((), 1, dt))
    a = lax.full((1,), 1, dt)
    for k in range(np.shape(z)[0]):
        factor = concatenate([lax.full((1,), 1, dt), shapes.expand_dims(
            ufuncs.negative(z[k]), (0,))])
        a = convolve(a, factor, mode="full")
    return a


def _roots_no_zeros(p):
    """The eigenvalues of p's companion matrix (as JAX and NumPy)."""
    from didax._src.numpy.linalg_eig import eigvals  # noqa: PLC0415 - above this module
    from didax._src.numpy.products import diag  # noqa: PLC0415

    n = np.shape(p)[0]
    if n < 2:
        return array([], dtype=dtypes.to_complex_dtype(dtype_of(p)))
    a = diag(ones((n - 2,), dtype_of(p)), -1)
    a = a.at[0, :].set(-p[1:] / p[0])
    return eigvals(a)


def roots(p, *, strip_zeros=True):
    """The roots of the polynomial with coefficients p (leading first); with strip_zeros
    (needs concrete p) leading zeros are dropped, else the extra roots are NaN, as JAX."""
    from didax._src.numpy.lax_numpy import where  # noqa: PLC0415

    (p,) = promote_dtypes_inexact(ensure_arraylike("roots", p))
    p = atleast_1d(p)
    if p.ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    if np.shape(p)[0] < 2:
        return array([], dtype=dtypes.to_complex_dtype(dtype_of(p)))
    zero = ufuncs.equal(p, 0)
    lead = where(red.all(zero), np.shape(p)[0], red.argmin(zero))
    if strip_zeros:
        lead = core.concrete_or_error(
            int, lead, "The error occurred in the jnp.roots() function. To use this within "
            "a JIT-compiled context, pass strip_zeros=False, but be aware that leading zeros "
            "will result in some returned roots being set to NaN.")
        return _roots_no_zeros(p[lead:])
    n = np.shape(p)[0]
    r = _roots_no_zeros(roll(where(n == lead, 1.0, p), -lead))
    r = sort_key_val(ufuncs.equal(r, 0), r)[1]
    return where(arange(n - 1) < n - 1 - lead, r, complex(np.nan, np.nan))


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """Least-squares polynomial fit of degree `deg` (coefficients highest power first), as
    JAX solves it: Vandermonde columns scaled to unit norm, then `lstsq`."""
    from didax._src.numpy import linalg, linalg_decomp  # noqa: PLC0415 - linalg sits beside
    from didax._src.numpy.numeric import vander  # noqa: PLC0415

    x, y = ensure_arraylike("polyfit", x, y)
    deg = core.concrete_or_error(int, deg, "deg must be int")
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x.size == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise TypeError("expected x and y to have same length")
    order = deg + 1
    if rcond is None:
        rcond = len(x) * float(dtypes.finfo(dtype_of(promote_dtypes_inexact(x)[0])).eps)
    lhs, rhs = vander(x, order), y
    if w is not None:
        (w,) = promote_dtypes_inexact(ensure_arraylike("polyfit", w))
        if w.ndim != 1 or w.shape[0] != y.shape[0]:
            raise TypeError("expected a 1-d array of weights with the length of y")
        lhs = lhs * w[:, np.newaxis]
        rhs = rhs * (w[:, np.newaxis] if rhs.ndim == 2 else w)
    scale = ufuncs_math.sqrt(red.sum(lhs * lhs, axis=0))
    lhs = lhs / scale[np.newaxis, :]
    c, resids, rank, s = linalg_decomp.lstsq(lhs, rhs, rcond)
    c = (c.T / scale[np.newaxis, :]).T if c.ndim > 1 else c / scale
    if full:
        return c, resids, rank, s, array(rcond)
    if not cov:
        return c
    vbase = linalg.inv(lhs.T @ lhs) / (scale[:, np.newaxis] * scale[np.newaxis, :])
    if cov == "unscaled":
        fac = array(1.0)
    else:
        if len(x) <= order:
            raise ValueError("the number of data points must exceed order to scale the "
                             "covariance matrix")
        fac = resids / (len(x) - order)
    if y.ndim == 1:
        return c, vbase * atleast_1d(fac)[np.newaxis]
    return c, vbase[:, :, np.newaxis] * fac
