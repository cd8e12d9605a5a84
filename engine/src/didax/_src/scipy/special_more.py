"""More of `jax.scipy.special`: the upper incomplete gamma `gammaincc`, the Hurwitz `zeta`,
`factorial`, `comb`, `beta`, `betainc`, the
modified Bessel functions `i0e`, `i1e`, `i1`, and importing this module registers the igamma/igammac
lowerings (scipy/special_loops.py). Each follows JAX's formula (jax/_src/scipy/special.py), so
results and edge cases (negative arguments, k > N) match JAX's.

May import core, dtypes, lax, numpy and scipy.special / scipy.special_loops.
"""

from __future__ import annotations

import numpy as np

from didax._src import dtypes
from didax._src.custom_derivatives import custom_jvp
from didax._src.lax import lax
from didax._src.numpy import lax_numpy as jnp_core
from didax._src.numpy.util import promote_args_inexact
from didax._src.scipy import special_loops as _loops  # noqa: F401 - registers lowerings
from didax._src.scipy.special import betaln, gammaln, gammasgn


def gammaincc(a, x):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    a, x = promote_args_inexact("gammaincc", a, x)
    return lax.igammac(a, x)


def zeta(x, q=None):
    """The Hurwitz zeta function sum_n (n + q)^-x (JAX has no Riemann zeta: q is required)."""
    if q is None:
        raise NotImplementedError(
            "Riemann zeta function not implemented; pass q != None to compute the Hurwitz "
            "Zeta function.")
    x, q = promote_args_inexact("zeta", x, q)
    return lax.zeta(x, q)


def factorial(n, exact: bool = False):
    """n! as Gamma(n + 1), in floating point; 0 for negative n."""
    if exact:
        raise NotImplementedError("factorial with exact=True")
    (n,) = promote_args_inexact("factorial", n)
    return jnp_core.where(n < 0, 0, lax.exp(lax.lgamma(n + 1)))


def comb(N, k, *, repetition: bool = False):
    """N choose k in floating point (0 when k < 0, N < 0 or k > N)."""
    N, k = promote_args_inexact("comb", N, k)
    if repetition:
        result = comb(N + k - 1, k, repetition=False)
        return jnp_core.where((k == 0) & (N >= 0), 1.0, result)
    ok = (k <= N) & (N >= 0) & (k >= 0)
    safe_n = jnp_core.where(ok, N, 0.0)
    safe_k = jnp_core.where(ok, k, 0.0)
    out = lax.exp(gammaln(safe_n + 1) - gammaln(safe_k + 1) - gammaln(safe_n + 1 - safe_k))
    return jnp_core.where(ok, out, 0.0)


def betainc(a, b, x):
    """The regularized incomplete beta function I_x(a, b) (differentiable in x only)."""
    a, b, x = promote_args_inexact("betainc", a, b, x)
    if dtypes.is_complex(x.dtype):
        raise ValueError("betainc does not support complex-valued inputs.")
    return lax.betainc(a, b, x)


def _bessel_series(x, nu: int):
    """(x/2)^nu sum_k (x^2/4)^k / (k! (k+nu)!) for |x| <= 30 (60 terms: float64 precision);
    written in x itself (not |x|), so I1's series stays odd and differentiable at 0."""
    q = x * x * 0.25
    term = lax.full_like(x, 1) if nu == 0 else x * 0.5
    total = term
    for k in range(1, 60):
        term = term * q / float(k * (k + nu))
        total = total + term
    return total


def _bessel_asymptotic_e(ax, nu: int):
    """exp(-x) I_nu(x) for x >= 30: (2 pi x)^-1/2 sum_k prod_j (-(4nu^2 - (2j-1)^2)) / (k! (8x)^k)."""
    mu = 4.0 * nu * nu
    inv = 1.0 / (ax * 8.0)
    term = lax.full_like(ax, 1)
    total = term
    for k in range(1, 14):
        term = term * inv * (-(mu - (2 * k - 1) ** 2) / k)
        total = total + term
    return lax.rsqrt(ax * (2 * np.pi)) * total


def _bessel_e(x, nu: int):
    """exp(-|x|) I_nu(x): the power series up to |x| = 30, the asymptotic series beyond."""
    ax = lax.abs(x)
    small = lax.le(ax, lax.full_like(ax, 30.0))
    xs = lax.clamp(lax.full_like(x, -30.0), x, lax.full_like(x, 30.0))
    series = _bessel_series(xs, nu) * lax.exp(-lax.abs(xs))
    asym = _bessel_asymptotic_e(lax.max(ax, lax.full_like(ax, 30.0)), nu)
    if nu:
        asym = lax.sign(x) * asym
    return jnp_core.where(small, series, asym)


@custom_jvp
def _i0e(x):
    return _bessel_e(x, 0)


@custom_jvp
def _i1e(x):
    return _bessel_e(x, 1)


@_i0e.defjvp
def _i0e_jvp(primals, tangents):
    (x,), (g,) = primals, tangents
    y = _i0e(x)
    return y, g * (_i1e(x) - lax.sign(x) * y)


@_i1e.defjvp
def _i1e_jvp(primals, tangents):
    """d/dx exp(-|x|) I1(x) = i0e(x) - i1e(x) (sign(x) + 1/x), and 1/2 at x = 0 (JAX's rule)."""
    (x,), (g,) = primals, tangents
    y = _i1e(x)
    eps = float(dtypes.finfo(dtypes.dtype(x)).eps)
    not_tiny = lax.gt(lax.abs(x), lax.full_like(x, eps))
    safe = jnp_core.where(not_tiny, x, eps)
    dy = jnp_core.where(not_tiny, _i0e(safe) - y * (lax.sign(safe) + 1.0 / safe), 0.5)
    return y, g * dy


def i0e(x):
    """The exponentially scaled modified Bessel function exp(-|x|) I0(x)."""
    (x,) = promote_args_inexact("i0e", x)
    return _i0e(x)


def i1e(x):
    """The exponentially scaled modified Bessel function exp(-|x|) I1(x)."""
    (x,) = promote_args_inexact("i1e", x)
    return _i1e(x)


def i1(x):
    """The modified Bessel function of the first kind, order 1."""
    (x,) = promote_args_inexact("i1", x)
    return lax.exp(lax.abs(x)) * _i1e(x)


def beta(a, b):
    """The beta function Gamma(a) Gamma(b) / Gamma(a + b), with its sign."""
    a, b = promote_args_inexact("beta", a, b)
    if dtypes.is_complex(a.dtype):
        raise ValueError("beta does not support complex-valued inputs.")
    sign = gammasgn(a) * gammasgn(b) * gammasgn(a + b)
    return sign * lax.exp(betaln(a, b))
