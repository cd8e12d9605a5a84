"""`didax.scipy.special`: logsumexp, erf/erfc/erfinv, gammaln/gamma/gammasgn/digamma/
polygamma, gammainc, betaln, multigammaln, expit/logit, xlogy/xlog1py (custom_jvp, as JAX),
entr/rel_entr/kl_div, ndtr/ndtri/log_ndtr, softmax/log_softmax, i0 — JAX's values,
dtypes and derivatives.

May import core, dtypes, lax (incl. lax.special), numpy and custom_derivatives.
"""

from __future__ import annotations

import numpy as np

from didax._src import core, dtypes
from didax._src.custom_derivatives import custom_jvp
from didax._src.lax import lax
from didax._src.lax.special import erfc as _lax_erfc
from didax._src.numpy import lax_numpy as jnp_core
from didax._src.numpy import reductions as red
from didax._src.numpy import ufuncs as uf
from didax._src.numpy import ufuncs_math as um
from didax._src.numpy.array_creation import arange
from didax._src.numpy.statistics import _logsumexp_impl
from didax._src.numpy.util import (
    const_like,
    ensure_arraylike,
    full_like,
    promote_args_inexact,
    where3,
)


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    return _logsumexp_impl(a, axis, b, keepdims, return_sign, where)


def _unary(name, lax_fn):
    def f(x):
        (x,) = promote_args_inexact(name, x)
        return lax_fn(x)
    f.__name__ = f.__qualname__ = name
    return f


erf = _unary("erf", lax.erf)
erfc = _unary("erfc", _lax_erfc)
erfinv = _unary("erfinv", lax.erf_inv)
gammaln = _unary("gammaln", lax.lgamma)
loggamma = gammaln
digamma = _unary("digamma", lax.digamma)
expit = _unary("expit", lax.logistic)


def _logit_impl(x):
    (x,) = promote_args_inexact("logit", x)
    return lax.log(lax.div(x, lax.sub(const_like(x, 1), x)))


_logit_impl.__name__ = "logit"
logit = custom_jvp(_logit_impl)
logit.defjvps(lambda g, ans, x: lax.div(g, lax.mul(x, lax.sub(const_like(x, 1), x))))
logit.__name__ = "logit"


def gammasgn(x):
    (x,) = promote_args_inexact("gammasgn", x)
    if dtypes.is_complex(x.dtype):
        raise ValueError("gammasgn does not support complex-valued inputs.")
    floor_x = lax.floor(x)
    neg = uf.less(x, 0)
    nan_case = uf.logical_or(uf.logical_and(neg, uf.equal(x, floor_x)), um.isnan(x))
    minus = uf.logical_or(uf.logical_and(neg, uf.not_equal(uf.remainder(floor_x, 2), 0)),
                          uf.logical_and(uf.equal(x, 0), um.signbit(x)))
    typ = x.dtype.type
    return jnp_core.select([nan_case, minus], [typ(np.nan), typ(-1.0)], typ(1.0))


def gamma(x):
    (x,) = promote_args_inexact("gamma", x)
    if dtypes.is_complex(x.dtype):
        raise NotImplementedError("complex gamma is not implemented")
    return uf.multiply(gammasgn(x), lax.exp(lax.lgamma(x)))


def polygamma(n, x):
    if not dtypes.is_int(dtypes.dtype(n)):
        raise ValueError(f"Argument `n` to polygamma must be of integer type. Got dtype "
                         f"{dtypes.dtype(n)}.")
    n, x = promote_args_inexact("polygamma", n, x)
    if dtypes.is_complex(x.dtype):
        raise ValueError("polygamma does not support complex-valued inputs.")
    return lax.polygamma(n, x)


def gammainc(a, x):
    a, x = promote_args_inexact("gammainc", a, x)
    return lax.igamma(a, x)


# Coefficients of cdflib's `algdiv` (a fitted Stirling series), which JAX's betaln uses.
_ALGDIV = (0.833333333333333e-01, -0.277777777760991e-02, 0.793650666825390e-03,
           -0.595202931351870e-03, 0.837308034031215e-03, -0.165322962780713e-02)


def _algdiv(a, b):
    """log(gamma(b) / gamma(a + b)) for b >= 8 (cdflib's algorithm, as JAX computes it)."""
    c0, c1, c2, c3, c4, c5 = _ALGDIV
    h = a / b
    c = h / (1 + h)
    x = h / (1 + h)
    d = b + (a - 0.5)
    x2 = x * x
    s3 = 1.0 + (x + x2)
    s5 = 1.0 + (x + x2 * s3)
    s7 = 1.0 + (x + x2 * s5)
    s9 = 1.0 + (x + x2 * s7)
    s11 = 1.0 + (x + x2 * s9)
    t = (1.0 / b) ** 2
    w = ((((c5 * s11 * t + c4 * s9) * t + c3 * s7) * t + c2 * s5) * t + c1 * s3) * t + c0
    w = w * (c / b)
    u = d * lax.log1p(a / b)
    v = a * (lax.log(b) - 1.0)
    return jnp_core.where(u <= v, (w - v) - u, (w - u) - v)


def betaln(a, b):
    """log |B(a, b)|: lgamma sums for small arguments, cdflib's asymptotic `algdiv` when
    the larger one is at least 8 (JAX's method, so the float32 bits match)."""
    a, b = promote_args_inexact("betaln", a, b)
    a, b = uf.minimum(a, b), uf.maximum(a, b)
    small_b = lax.lgamma(a) + (lax.lgamma(b) - lax.lgamma(a + b))
    large_b = lax.lgamma(a) + _algdiv(a, b)
    return jnp_core.where(b < 8, small_b, large_b)


def multigammaln(a, d):
    d = core.concrete_or_error(int, d, "d argument of multigammaln")
    a, d_ = promote_args_inexact("multigammaln", a, d)
    const = lax.mul(lax.mul(lax.mul(const_like(a, 0.25), d_), lax.sub(d_, const_like(a, 1))),
                    lax.log(const_like(a, np.pi)))
    b = lax.div(arange(d, dtype=d_.dtype), const_like(a, 2))
    res = red.sum(gammaln(uf.subtract(jnp_core.expand_dims(a, -1), jnp_core.expand_dims(
        b, tuple(range(np.ndim(a)))))), axis=-1)
    return uf.add(res, const)


# ----------------------------------------------------------------------------------------
# x log y and entropies
# ----------------------------------------------------------------------------------------


def _xlogy_impl(x, y):
    x, y = promote_args_inexact("xlogy", x, y)
    ok = uf.logical_or(uf.not_equal(x, 0.0), um.isnan(y))
    return where3(ok, lax.mul(x, lax.log(y)), jnp_core.zeros_like(x))


def _xlog1py_impl(x, y):
    x, y = promote_args_inexact("xlog1py", x, y)
    ok = uf.logical_or(uf.not_equal(x, 0.0), um.isnan(y))
    return where3(ok, lax.mul(x, lax.log1p(y)), jnp_core.zeros_like(x))


_xlogy_impl.__name__, _xlog1py_impl.__name__ = "xlogy", "xlog1py"
xlogy = custom_jvp(_xlogy_impl)
xlog1py = custom_jvp(_xlog1py_impl)


@xlogy.defjvp
def _xlogy_jvp(primals, tangents):
    (x, y), (xd, yd) = primals, tangents
    out = xlogy(x, y)
    t = uf.add(uf.multiply(xd, lax.log(y)), uf.true_divide(uf.multiply(yd, x), y))
    return out, jnp_core.astype(t, out.dtype)


@xlog1py.defjvp
def _xlog1py_jvp(primals, tangents):
    (x, y), (xd, yd) = primals, tangents
    out = xlog1py(x, y)
    t = uf.add(uf.multiply(xd, lax.log1p(y)), uf.true_divide(uf.multiply(yd, x),
                                                             uf.add(1, y)))
    return out, jnp_core.astype(t, out.dtype)


def _xlogx_impl(x):
    return xlogy(x, x)


_xlogx = custom_jvp(_xlogx_impl)


@_xlogx.defjvp
def _xlogx_jvp(primals, tangents):
    (x,), (xd,) = primals, tangents
    return _xlogx(x), uf.multiply(xd, uf.add(lax.log(x), 1))


def entr(x):
    (x,) = promote_args_inexact("entr", x)
    if dtypes.is_complex(x.dtype):
        raise ValueError("entr does not support complex-valued inputs.")
    return lax.select(lax.lt(x, const_like(x, 0)), full_like(x, -np.inf),
                      lax.neg(_xlogx(x)))


def rel_entr(p, q):
    p, q = promote_args_inexact("rel_entr", p, q)
    if dtypes.is_complex(p.dtype):
        raise ValueError("rel_entr does not support complex-valued inputs.")
    zero = const_like(p, 0.0)
    both = lax.bitwise_and(lax.gt(p, zero), lax.gt(q, zero))
    one_zero = lax.bitwise_and(lax.eq(p, zero), lax.ge(q, zero))
    sp, sq = where3(both, p, 1), where3(both, q, 1)
    val = lax.sub(_xlogx(sp), xlogy(sp, sq))
    return where3(both, val, where3(one_zero, zero, np.inf))


def kl_div(p, q):
    p, q = promote_args_inexact("kl_div", p, q)
    if dtypes.is_complex(p.dtype):
        raise ValueError("kl_div does not support complex-valued inputs.")
    return uf.add(uf.subtract(rel_entr(p, q), p), q)


# ----------------------------------------------------------------------------------------
# Normal distribution
# ----------------------------------------------------------------------------------------


def _check_float(x, name):
    if x.dtype not in (np.float32, np.float64):
        raise TypeError(f"x.dtype={x.dtype} is not supported, see docstring for supported "
                        "types.")


def ndtr(x):
    x = jnp_core.asarray(x)
    _check_float(x, "ndtr")
    return _ndtr(x)


def _ndtr(x):
    typ = x.dtype.type
    half_sqrt_2 = typ(0.5) * np.sqrt(2.0, dtype=x.dtype)
    w = x * half_sqrt_2  # jnp promotion: a weak x becomes strong, as in JAX
    z = lax.abs(w)
    y = lax.select(lax.lt(z, half_sqrt_2), lax.add(typ(1.0), lax.erf(w)),
                   lax.select(lax.gt(w, typ(0.0)), lax.sub(typ(2.0), _lax_erfc(z)),
                              _lax_erfc(z)))
    return lax.mul(typ(0.5), y)


# Acklam's rational approximation of the normal quantile (relative error < 1.2e-9),
# refined by one Halley step on ndtr.
_A = (-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
      1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00)
_B = (-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
      6.680131188771972e+01, -1.328068155288572e+01, 1.0)
_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
      -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00)
_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
      3.754408661907416e+00, 1.0)


def _horner(coeffs, x):
    acc = full_like(x, coeffs[0])
    for c in coeffs[1:]:
        acc = lax.add(lax.mul(acc, x), const_like(x, c))
    return acc


def _ndtri_approx(p):
    low = 0.02425
    q = lax.sub(p, const_like(p, 0.5))
    r = lax.mul(q, q)
    central = lax.div(lax.mul(_horner(_A, r), q), _horner(_B, r))
    tail_p = lax.min(p, lax.sub(const_like(p, 1), p))
    safe = lax.max(tail_p, const_like(p, np.finfo(p.dtype).tiny))
    t = lax.sqrt(lax.mul(const_like(p, -2.0), lax.log(safe)))
    tail = lax.div(_horner(_C, t), _horner(_D, t))
    tail = lax.select(lax.gt(p, const_like(p, 0.5)), lax.neg(tail), tail)
    x = lax.select(lax.lt(tail_p, const_like(p, low)), tail, central)
    e = lax.sub(_ndtr(x), p)
    u = lax.mul(lax.mul(e, const_like(p, np.sqrt(2 * np.pi))),
                lax.exp(lax.mul(const_like(p, 0.5), lax.mul(x, x))))
    x = lax.sub(x, lax.div(u, lax.add(const_like(p, 1), lax.mul(lax.mul(x, u),
                                                                const_like(p, 0.5)))))
    x = lax.select(lax.eq(p, const_like(p, 0)), full_like(p, -np.inf), x)
    x = lax.select(lax.eq(p, const_like(p, 1)), full_like(p, np.inf), x)
    bad = lax.bitwise_or(lax.lt(p, const_like(p, 0)), lax.gt(p, const_like(p, 1)))
    return lax.select(lax.bitwise_or(bad, lax.ne(p, p)), full_like(p, np.nan), x)


_ndtri = custom_jvp(_ndtri_approx)


@_ndtri.defjvp
def _ndtri_jvp(primals, tangents):
    (p,), (t,) = primals, tangents
    x = _ndtri(p)
    slope = lax.mul(const_like(x, np.sqrt(2 * np.pi)),
                    lax.exp(lax.mul(const_like(x, 0.5), lax.mul(x, x))))
    return x, lax.mul(t, slope)


def ndtri(p):
    p = jnp_core.asarray(p)
    _check_float(p, "ndtri")
    return _ndtri(p)


def log_ndtr(x, series_order=3):
    if not isinstance(series_order, int):
        raise TypeError("series_order must be a Python integer.")
    if series_order < 0:
        raise ValueError("series_order must be non-negative.")
    if series_order > 30:
        raise ValueError("series_order must be <= 30.")
    x = jnp_core.asarray(x)
    _check_float(x, "log_ndtr")
    lower, upper = (-20.0, 8.0) if x.dtype == np.float64 else (-10.0, 5.0)
    above = lax.gt(x, const_like(x, upper))
    arg = where3(above, lax.neg(x), lax.max(x, const_like(x, lower)))
    res = _ndtr(arg)
    return where3(above, lax.neg(res),
                  where3(lax.gt(x, const_like(x, lower)), lax.log(res),
                         _log_ndtr_lower(lax.min(x, const_like(x, lower)), series_order)))


def _log_ndtr_lower(x, series_order):
    """Asymptotic series of log(ndtr(x)) for very negative x."""
    x_2 = lax.square(x)
    log_scale = lax.sub(lax.sub(lax.mul(const_like(x, -0.5), x_2), lax.log(lax.neg(x))),
                        const_like(x, 0.5 * np.log(2.0 * np.pi)))
    return lax.add(log_scale, lax.log(_log_ndtr_series(x, series_order)))


def _log_ndtr_series(x, series_order):
    x_2 = lax.square(x)
    even, odd = full_like(x, 0), full_like(x, 0)
    x_pow = full_like(x, 1)
    for n in range(1, series_order + 1):
        x_pow = lax.mul(x_pow, x_2)
        y = lax.div(const_like(x, float(_double_factorial(2 * n - 1))), x_pow)
        if n % 2:
            odd = lax.add(odd, y)
        else:
            even = lax.add(even, y)
    return lax.add(lax.sub(const_like(x, 1.0), odd), even)


def _double_factorial(n: int) -> int:
    out = 1
    for k in range(n, 0, -2):
        out *= k
    return out


def softmax(x, /, *, axis=None):
    from didax._src.nn import softmax as _softmax  # noqa: PLC0415

    return _softmax(x, axis)


def log_softmax(x, /, *, axis=None):
    from didax._src.nn import log_softmax as _log_softmax  # noqa: PLC0415

    return _log_softmax(x, axis)


def i0(x):
    return um.i0(ensure_arraylike("i0", x))

