"""More of `jax.scipy.special`: the Box-Cox transforms (`boxcox`, `boxcox1p`), the
Pochhammer symbol `poch`, the Bernoulli numbers `bernoulli(n)` and the scaled
complementary error function `erfcx` (real arguments) — with JAX's formulas and derivative
rules (jax/_src/scipy/special.py), so values and gradients match.

May import core, dtypes, lax, jit, numpy (the implementation modules), custom_derivatives,
control flow and scipy.special.
"""

from __future__ import annotations

import operator

import numpy as np

from didax._src import dtypes
from didax._src.custom_derivatives import custom_jvp
from didax._src.lax import lax, shapes
from didax._src.lax.control_flow.loops import while_loop
from didax._src.lax.control_flow.scan import scan
from didax._src.numpy import array_creation as ac
from didax._src.numpy import lax_numpy as ln
from didax._src.numpy import manipulation as man
from didax._src.numpy import polynomial as poly
from didax._src.numpy import reductions as red
from didax._src.numpy import ufuncs as uf
from didax._src.numpy import ufuncs_math as um
from didax._src.numpy.util import jit_like_jax, promote_args_inexact, promote_dtypes_inexact
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


# ---- Bessel functions of the first kind ------------------------------------------------


def _bessel_step(carry, k):
    """One step down Miller's recurrence J_k = 2 (k+1) J_{k+1} / z - J_{k+2}, summing
    2 J_k over even k for the normalization J_0 + 2 sum J_2m = 1."""
    f0, f1, total, z = carry
    f = 2.0 * (k + 1.0) * f1 / z - f0
    total = ln.where(k % 2 == 0, total + 2.0 * f, total)
    return (f1, f, total, z), f


@jit_like_jax("bessel_jn", static_argnames=("v", "n_iter"), eager_compiled=True)
def bessel_jn(z, *, v: int, n_iter: int = 50):
    """J_0(z) .. J_v(z) stacked on a new leading axis, by backward recurrence from order
    n_iter (accurate while n_iter is well above both v and |z|)."""
    z, = promote_dtypes_inexact(ac.asarray(z))
    if dtypes.issubdtype(z.dtype, np.complexfloating):
        raise ValueError("complex input not supported.")
    v, n_iter = operator.index(v), int(n_iter)
    zero = ac.zeros_like(z)
    init = (zero, ac.full_like(z, 1e-16), zero, z)
    (_, _, total, _), vals = scan(_bessel_step, init,
                                  shapes.iota(z.dtype, n_iter + 1), reverse=True)
    return vals[:v + 1] / (total - vals[0])


# ---- exponential integrals -------------------------------------------------------------
# E_n(x) = int_1^inf exp(-x t) / t^n dt, by Cephes' method (as JAX): a power series for
# x <= 1, a continued fraction for x > 1, an asymptotic expansion for n >= 5000. Loops run
# until every element converged; converged elements stay fixed.


def _until_converged(x, eps, body, state):
    """while_loop over a dict state with per-element convergence on state["t"]."""
    def active(d):
        return (x > 0) & (d["t"] > eps)

    def step(d):
        new, on = body(d), active(d)
        return {k: ln.where(on, new[k], d[k]) for k in d}
    return while_loop(lambda d: red.any(active(d)), step, state)


def _harmonic_plus(psi, n):
    """psi + 1/1 + ... + 1/(n-1), summed in that order (per element)."""
    def body(d):
        on = d["i"] < n
        return dict(i=d["i"] + 1, psi=ln.where(on, d["psi"] + 1 / d["i"], d["psi"]))
    state = dict(i=ac.ones_like(n), psi=psi)
    return while_loop(lambda d: red.any(d["i"] < n), body, state)["psi"]


def _expn_series(x, n):
    eps = float(dtypes.finfo(x.dtype).eps)
    one, zero = lax._const(x, 1.0), lax._const(x, 0.0)
    psi = _harmonic_plus(-np.euler_gamma - um.log(x), n)
    n1 = ln.where(n == 1, 2 * one, n)
    state = dict(xk=zero + 0 * x, yk=one + 0 * x, pk=one - n + 0 * x,
                 ans=ln.where(n == 1, zero, one / (one - n1)) + 0 * x, t=ac.full_like(x, np.inf))

    def body(d):
        xk = d["xk"] + one
        yk = d["yk"] * (-x / xk)
        pk = d["pk"] + one
        ans = d["ans"] + ln.where(pk != zero, yk / ln.where(pk != zero, pk, one), zero)
        t = ln.where(ans != zero, uf.abs(yk / ln.where(ans != zero, ans, one)), one)
        return dict(xk=xk, yk=yk, pk=pk, ans=ans, t=t)
    d = _until_converged(x, eps, body, state)
    return (-x) ** (n - one) * psi / um.exp(special.gammaln(n)) - d["ans"]


def _expn_fraction(x, n):
    eps = float(dtypes.finfo(x.dtype).eps)
    one, zero, big = lax._const(x, 1.0), lax._const(x, 0.0), lax._const(x, 2.0**57)
    state = dict(k=one + 0 * x, pkm2=one + 0 * x, qkm2=x, pkm1=one + 0 * x, qkm1=x + n,
                 ans=one / (x + n), t=ac.full_like(x, np.inf))

    def body(d):
        k = d["k"] + one
        odd = k % 2 == 1
        yk = ln.where(odd, one, x)
        xk = ln.where(odd, n + (k - one) / 2, k / 2)
        pk = d["pkm1"] * yk + d["pkm2"] * xk
        qk = d["qkm1"] * yk + d["qkm2"] * xk
        nz = qk != zero
        r = pk / ln.where(nz, qk, one)
        t = ln.where(nz, uf.abs((d["ans"] - r) / r), one)
        ans = ln.where(nz, r, d["ans"])
        scale = ln.where(uf.abs(pk) > big, big, one)
        return dict(k=k, pkm2=d["pkm1"] / scale, qkm2=d["qkm1"] / scale, pkm1=pk / scale,
                    qkm1=qk / scale, ans=ans, t=t)
    return _until_converged(x, eps, body, state)["ans"] * um.exp(-x)


def _expn_large_n(x, n):
    xk = x + n
    yk = 1 / (xk * xk)
    ans = yk * n * (6 * x * x - 8 * n * x + n * n)
    ans = yk * (ans + n * (n - 2 * x))
    ans = yk * (ans + n)
    return (ans + 1) * um.exp(-x) / xk


@jit_like_jax("expn", eager_compiled=True)
def _expn(n, x):
    n, x = promote_args_inexact("expn", n, x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise ValueError("expn does not support complex-valued inputs.")
    n, x = man.broadcast_arrays(n, x)
    small, large = x <= 1, x > 1
    series = _expn_series(ln.where(small & (x > 0), x, 0.5), n)
    fraction = _expn_fraction(ln.where(large, x, 2.0), n)
    n1 = ln.where(n == 1, n + n, n)
    # in order, a later condition overriding an earlier one (as jnp.piecewise picks)
    cases = [((n < 0) | (x < 0), np.nan), ((x == 0) & (n < 2), np.inf),
             ((x == 0) & (n >= 2), 1 / n1), ((n == 0) & (x >= 0), um.exp(-x) / x),
             (n >= 5000, _expn_large_n(x, n)), (large, fraction)]
    out = series
    for cond, val in cases:
        out = ln.where(cond, val, out)
    return lax.convert_element_type(out, out.dtype)  # JAX's result is never weakly typed


@custom_jvp
def _expn_diff(n, x):
    return _expn(n, x)


_expn_diff.defjvps(None, lambda g, ans, n, x: lax.mul(lax.neg(g), _expn(n - 1, x)))  # as JAX


def expn(n, x):
    """The generalized exponential integral E_n(x) = int_1^inf exp(-x t) / t^n dt."""
    return _expn_diff(n, x)


def exp1(x):
    """The exponential integral E_1(x) = int_x^inf exp(-t) / t dt."""
    x, = promote_args_inexact("exp1", x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise ValueError("exp1 does not support complex-valued inputs.")
    return expn(1, x)


def _ei_positive(x):
    """Ei(x), x > 0: gamma + log x + sum_k x^k / (k k!) for x <= 40, else the asymptotic
    exp(x)/x sum_k k! / x^k."""
    eps = float(dtypes.finfo(x.dtype).eps)
    near = ln.where(x <= 40, x, 1.0)
    series = _until_converged(near, eps, lambda d: _ei_series_step(near, d),
                              dict(k=ac.zeros_like(x), term=ac.ones_like(x),
                                   total=ac.zeros_like(x), t=ac.full_like(x, np.inf)))
    far = ln.where(x > 40, x, 50.0)
    asym = _until_converged(far, eps, lambda d: _ei_asymptotic_step(far, d),
                            dict(k=ac.zeros_like(x), term=ac.ones_like(x),
                                 total=ac.ones_like(x), t=ac.full_like(x, np.inf)))
    small = np.euler_gamma + um.log(near) + series["total"]
    return ln.where(x <= 40, small, um.exp(far) / far * asym["total"])


def _ei_series_step(x, d):
    k = d["k"] + 1
    term = d["term"] * x / k
    add = term / k
    total = d["total"] + add
    return dict(k=k, term=term, total=total, t=add / total)


def _ei_asymptotic_step(x, d):
    k = d["k"] + 1
    term = d["term"] * k / x
    total = d["total"] + term
    return dict(k=k, term=term, total=total, t=term / total)


@custom_jvp
@jit_like_jax("expi", eager_compiled=True)
def expi(x):
    """The exponential integral Ei(x) = -int_{-x}^inf exp(-t) / t dt (principal value)."""
    x, = promote_args_inexact("expi", x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise ValueError("expi does not support complex-valued inputs.")
    positive = _ei_positive(ln.where(x > 0, x, 1.0))
    out = ln.where(x < 0, -exp1(-x), ln.where(x == 0, -np.inf, positive))
    return lax.convert_element_type(out, out.dtype)  # JAX's result is never weakly typed


expi.defjvps(lambda g, ans, x: um.exp(x) / x * g)
