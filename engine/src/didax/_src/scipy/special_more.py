"""More of `jax.scipy.special`: the upper incomplete gamma `gammaincc`, the Hurwitz `zeta`,
`factorial`, `comb`, `beta`, `betainc`, and importing this module registers the igamma/igammac
lowerings (scipy/special_loops.py). Each follows JAX's formula (jax/_src/scipy/special.py), so
results and edge cases (negative arguments, k > N) match JAX's.

May import core, dtypes, lax, numpy and scipy.special / scipy.special_loops.
"""

from __future__ import annotations

from didax._src import dtypes
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


def beta(a, b):
    """The beta function Gamma(a) Gamma(b) / Gamma(a + b), with its sign."""
    a, b = promote_args_inexact("beta", a, b)
    if dtypes.is_complex(a.dtype):
        raise ValueError("beta does not support complex-valued inputs.")
    sign = gammasgn(a) * gammasgn(b) * gammasgn(a + b)
    return sign * lax.exp(betaln(a, b))
