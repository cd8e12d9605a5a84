"""More of `jax.scipy.special`: the Box-Cox transforms (`boxcox`, `boxcox1p`), the
Pochhammer symbol `poch`, the Bernoulli numbers `bernoulli(n)` and the scaled
complementary error function `erfcx` (real arguments) — with JAX's formulas and derivative
rules (jax/_src/scipy/special.py), so values and gradients match.

May import core, dtypes, lax, numpy (the implementation modules), custom_derivatives and
scipy.special.
"""

from __future__ import annotations

import operator

import numpy as np

from didax._src import dtypes
from didax._src.custom_derivatives import custom_jvp
from didax._src.lax import lax
from didax._src.numpy import array_creation as ac
from didax._src.numpy import lax_numpy as ln
from didax._src.numpy import polynomial as poly
from didax._src.numpy import reductions as red
from didax._src.numpy import ufuncs_math as um
from didax._src.numpy.util import promote_args_inexact
from didax._src.scipy import special


def _box_cox(name, log_fn):
    def transform(x, lmbda):
        x, lmbda = promote_args_inexact(name, x, lmbda)
        zero = lmbda == 0
        safe = ln.where(zero, ac.ones_like(lmbda), lmbda)
        logs = log_fn(x)
        return ln.where(zero, logs, um.expm1(safe * logs) / safe)
    transform.__name__ = name
    transform.__doc__ = (f"The Box-Cox transform of {'1 + x' if name == 'boxcox1p' else 'x'}: "
                         "((.)**lmbda - 1) / lmbda, or log(.) when lmbda == 0.")
    return transform


boxcox = _box_cox("boxcox", um.log)
boxcox1p = _box_cox("boxcox1p", um.log1p)


@custom_jvp
def poch(z, m):
    """The rising factorial gamma(z + m) / gamma(z) (1 where m == 0)."""
    z, m = promote_args_inexact("poch", z, m)
    if dtypes.issubdtype(z.dtype, np.complexfloating):
        raise ValueError("jnp.poch does not support complex-valued inputs.")
    return ln.where(m == 0.0, ac.array(1, dtype=z.dtype),
                    special.gamma(z + m) / special.gamma(z))


poch.defjvps(
    lambda z_dot, ans, z, m: (special.digamma(z + m) - special.digamma(z)) * poch(z, m) * z_dot,
    lambda m_dot, ans, z, m: special.digamma(z + m) * poch(z, m) * m_dot)


def bernoulli(n: int):
    """The Bernoulli numbers B_0 .. B_n (B_1 = -1/2), the even ones from the zeta series
    B_m = 2 (-1)^(m/2+1) m! zeta(m) / (2 pi)^m."""
    n = operator.index(n)
    if n < 0:
        raise ValueError("n must be a non-negative integer.")
    first = ac.array([1, -1 / 2, 1 / 6])
    if n < 3:
        return first[:n + 1]
    out = ac.zeros(n + 1).at[:3].set(first)
    m = ac.arange(4, n + 1, 2, dtype=out.dtype)
    # m! / (2 pi)^m with its sign, accumulated from B_2's factor by two factors per step
    factor = 1.0 / np.pi**2 * red.cumprod(-(m - 1) * m / 4 / np.pi**2)
    k = ac.arange(2, 50, dtype=out.dtype)
    zeta_minus_one = red.sum(k[:, None] ** (-m[None, :]), axis=0)
    return out.at[4::2].set(factor * (1 + zeta_minus_one))


def _erfcx_asymptotic(x, nterms: int):
    """exp(x^2) erfc(x) ~ (1/(x sqrt(pi))) sum_k (-1)^k (2k-1)!! / (2 x^2)^k."""
    coeffs = [(-1) ** k * float(np.prod(np.arange(1, 2 * k, 2))) / 2**k for k in range(nterms)]
    t = lax._const(x, 1.0) / lax.square(x)
    return poly.polyval(np.array(coeffs[::-1], dtype=x.dtype), t) / (
        x * lax._const(x, np.sqrt(np.pi)))


def _erfcx_real(x, nterms: int):
    threshold = np.sqrt(np.log(dtypes.finfo(x.dtype).max))
    large = x > lax._const(x, threshold)
    safe = lax.select(large, lax.full_like(x, 1.0), x)
    direct = lax.exp(lax.square(safe)) * special.erfc(safe)
    return lax.select(large, _erfcx_asymptotic(x, nterms), direct)


@custom_jvp
def _erfcx(x):
    x = ac.asarray(x)
    if x.dtype == np.float64:
        return _erfcx_real(x, 9)
    if x.dtype == np.float32:
        return _erfcx_real(x, 5)
    return _erfcx_real(x.astype(np.float32), 5).astype(x.dtype)


_erfcx.defjvps(lambda g, ans, x: g * (2 * x * ans - lax._const(x, 2.0 / np.sqrt(np.pi))))


def erfcx(x):
    """The scaled complementary error function exp(x^2) erfc(x), accurate for large x."""
    x, = promote_args_inexact("erfcx", x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise NotImplementedError(
            "jax.scipy.special.erfcx of complex arguments (the Faddeeva function) is not "
            "implemented in didax; use real arguments instead.")
    return _erfcx(x)
