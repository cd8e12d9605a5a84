"""Lowerings of the special functions StableHLO/CHLO lack, as JAX writes them in
jax/_src/lax/special.py. The regularized incomplete beta I_x(a, b): the modified Lentz
evaluation of its continued fraction (DLMF 8.17.22), on the side of x where it converges
fast. The regularized incomplete gamma functions `igamma` (P) and `igammac` (Q): the power series for P where x < 1 or x < a, else the continued
fraction for Q (Cephes' igam/igamc), both as elementwise `while_loop`s under a per-element
`enabled` mask — the algorithm and stopping rules of jax/_src/lax/special.py, so values
under jit (and eagerly, through XLA) match JAX's.

May import core, dtypes, interpreters, lax and the control-flow library.
"""

from __future__ import annotations

import numpy as np

from didax._src import core, dtypes
from didax._src.interpreters import lowering, mlir
from didax._src.lax import lax, reductions, shapes
from didax._src.lax.control_flow import while_loop
from didax._src.lax.lax import _const


def _c(x, v):
    return lax.full_like(x, v)


def _any(pred):
    return reductions.reduce_or(pred, tuple(range(np.ndim(pred))))


def _series(ax, x, a, enabled, eps):
    """P(a, x) = ax / a * sum_n x^n / ((a+1)...(a+n))."""
    def body(v):
        on, r, c, ans = v
        r = r + _c(r, 1)
        c = c * (x / r)
        ans = ans + c
        new = (r, c, ans)
        return (lax.bitwise_and(on, c / ans > _c(c, eps)),
                *(lax.select(on, n, o) for n, o in zip(new, v[1:])))

    out = while_loop(lambda v: _any(v[0]), body, (enabled, a, _c(a, 1), _c(a, 1)))
    return out[3] * ax / a


def _cf_step(v, eps):
    on, ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2 = v
    c, y, z = c + _const(c, 1), y + _c(y, 1), z + _c(z, 2)
    yc = y * c
    pk, qk = pkm1 * z - pkm2 * yc, qkm1 * z - qkm2 * yc
    nonzero = lax.ne(qk, _c(qk, 0))
    r = pk / qk
    t = lax.select(nonzero, lax.abs((ans - r) / r), _c(r, 1))
    ans = lax.select(nonzero, r, ans)
    rescale = lax.gt(lax.abs(pk), _c(pk, 1 / eps))
    pkm2, pkm1, qkm2, qkm1 = (lax.select(rescale, w * _c(w, eps), w)
                              for w in (pkm1, pk, qkm1, qk))
    new = (ans, t, y, z)
    kept = [lax.select(on, n, o) for n, o in zip(new, v[1:5])]
    rest = [lax.select(on, n, o) for n, o in zip((pkm1, qkm1, pkm2, qkm2), v[6:])]
    return (lax.bitwise_and(on, t > _c(t, eps)), *kept, c, *rest)


def _continued_fraction(ax, x, a, enabled, eps):
    """Q(a, x) = ax * (the Legendre continued fraction), at most 2000 terms."""
    y = _c(a, 1) - a
    z = x + y + _c(x, 1)
    pkm1, qkm1 = x + _c(x, 1), z * x
    init = (enabled, pkm1 / qkm1, _c(x, 1), y, z, _const(x, 0), pkm1, qkm1, _c(x, 1), x)
    out = while_loop(lambda v: lax.bitwise_and(v[5] < _const(v[5], 2000), _any(v[0])),
                     lambda v: _cf_step(v, eps), init)
    return out[1] * ax


def _setup(a, x):
    """(ax, domain error, underflow, x == 0, x == inf, eps) shared by P and Q."""
    dtype = core.get_aval(a).dtype
    is_nan = lax.bitwise_or(lax.ne(a, a), lax.ne(x, x))
    x_zero = lax.eq(x, _c(x, 0))
    domain = lax.bitwise_or(
        lax.bitwise_or(lax.lt(x, _c(x, 0)), lax.lt(a, _c(a, 0))),
        lax.bitwise_or(lax.bitwise_and(lax.eq(a, _c(a, 0)), x_zero), is_nan))
    ax = a * lax.log(x) - x - lax.lgamma(a)
    underflow = lax.lt(ax, _c(ax, -np.log(dtypes.finfo(dtype).max)))
    return lax.exp(ax), domain, underflow, x_zero, lax.eq(x, _c(x, np.inf)), \
        float(dtypes.finfo(dtype).eps)


def igamma_value(a, x):
    ax, domain, underflow, x_zero, x_inf, eps = _setup(a, x)
    use_q = lax.bitwise_and(lax.ge(x, _c(x, 1)), lax.gt(x, a))
    enabled = lax.bitwise_not(lax.bitwise_or(lax.bitwise_or(x_zero, domain),
                                             lax.bitwise_or(underflow, x_inf)))
    out = lax.select(
        use_q,
        _c(a, 1) - _continued_fraction(ax, x, a, lax.bitwise_and(enabled, use_q), eps),
        _series(ax, x, a, lax.bitwise_and(enabled, lax.bitwise_not(use_q)), eps))
    out = lax.select(x_zero, _c(a, 0), out)
    out = lax.select(x_inf, _c(a, 1), out)
    return lax.select(domain, _c(a, np.nan), out)


def igammac_value(a, x):
    ax, domain, underflow, _, x_inf, eps = _setup(a, x)
    a_zero = lax.eq(a, _c(a, 0))
    use_p = lax.bitwise_or(lax.lt(x, _c(x, 1)), lax.lt(x, a))
    enabled = lax.bitwise_not(lax.bitwise_or(lax.bitwise_or(domain, underflow),
                                             lax.bitwise_or(x_inf, a_zero)))
    series = _series(ax, x, a, lax.bitwise_and(enabled, use_p), eps)
    frac = _continued_fraction(ax, x, a, lax.bitwise_and(enabled, lax.bitwise_not(use_p)), eps)
    out = lax.select(use_p, _c(a, 1) - series, frac)
    out = lax.select(lax.bitwise_or(x_inf, a_zero), _c(out, 0), out)
    return lax.select(domain, _c(a, np.nan), out)


def _beta_numerator(n, a, b, x):
    """The n-th partial numerator of the I_x(a, b) continued fraction (1 for n = 1)."""
    nb = lax.broadcast_in_dim(n, np.shape(a), ()) if np.ndim(a) else n
    m_int = (nb - lax.full_like(nb, 1)) // lax.full_like(nb, 2)
    m = lax.convert_element_type(m_int, core.get_aval(a).dtype)
    one, two = _c(a, 1), _c(a, 2)
    even = lax.select(lax.eq(m_int, lax.full_like(m_int, 0)), -(a + b) * x / (a + one),
                      -(a + m) * (a + b + m) * x / ((a + two * m) * (a + two * m + one)))
    odd = m * (b - m) * x / ((a + two * m - one) * (a + two * m))
    is_even = lax.eq(nb % lax.full_like(nb, 2), lax.full_like(nb, 0))
    return lax.select(lax.eq(nb, lax.full_like(nb, 1)), _c(x, 1),
                      lax.select(is_even, even, odd))


def _lentz(a, b, x, iters, tiny):
    """Modified Lentz: h = b0 + a1/(b1 + a2/(b2 + ...)) with b0 = 0, bn = 1."""
    def body(v):
        n, _, c, d, h = v
        num = _beta_numerator(n, a, b, x)
        c = _c(x, 1) + num / c
        c = lax.select(lax.lt(lax.abs(c), _c(c, tiny)), _c(c, tiny), c)
        d = _c(x, 1) + num * d
        d = lax.reciprocal(lax.select(lax.lt(lax.abs(d), _c(d, tiny)), _c(d, tiny), d))
        delta = c * d
        unconverged = _any(lax.ge(lax.abs(delta - _c(delta, 1)), _c(delta, tiny)))
        return n + 1, unconverged, c, d, h * delta

    h = _c(x, tiny)
    init = (np.int32(1), np.bool_(True), h, _c(x, 0), h)
    return while_loop(lambda v: lax.bitwise_and(v[0] < iters, v[1]), body, init)[4]


def betainc_value(a, b, x):
    dtype = core.get_aval(a).dtype
    inf, zero, one = _c(a, np.inf), _c(a, 0), _c(a, 1)
    a_zero = lax.bitwise_or(lax.eq(a, zero), lax.eq(b, inf))
    b_zero = lax.bitwise_or(lax.eq(b, zero), lax.eq(a, inf))
    x_zero, x_one = lax.eq(x, zero), lax.eq(x, one)
    is_nan = lax.bitwise_or(lax.bitwise_or(lax.ne(a, a), lax.ne(b, b)), lax.ne(x, x))
    res_zero = lax.bitwise_or(lax.bitwise_and(b_zero, lax.bitwise_not(x_one)),
                              lax.bitwise_and(a_zero, x_zero))
    res_one = lax.bitwise_or(lax.bitwise_and(a_zero, lax.bitwise_not(x_zero)),
                             lax.bitwise_and(b_zero, x_one))
    bad = lax.bitwise_or(lax.bitwise_or(lax.lt(a, zero), lax.lt(b, zero)),
                         lax.bitwise_or(lax.lt(x, zero), lax.gt(x, one)))
    bad = lax.bitwise_or(bad, lax.bitwise_or(lax.bitwise_and(a_zero, b_zero), is_nan))
    fast = lax.lt(x, (a + one) / (a + b + _c(b, 2)))
    a, b, x = lax.select(fast, a, b), lax.select(fast, b, a), lax.select(fast, x, one - x)
    eps = float(dtypes.finfo(dtype).eps) / 2
    frac = _lentz(a, b, x, 200 if dtype == np.float32 else 600, eps)
    lbeta_small_a = lax.lgamma(b) - lax.lgamma(a + b)
    lbeta = lax.lgamma(a) + lbeta_small_a
    factor = lax.select(lax.lt(a, _c(a, float(dtypes.finfo(dtype).tiny) * 2)),
                        lax.exp(lax.log1p(-x) * b - lbeta_small_a),
                        lax.exp(lax.log(x) * a + lax.log1p(-x) * b - lbeta) / a)
    out = frac * factor
    out = lax.select(fast, out, one - out)
    out = lax.select(res_zero, zero, out)
    out = lax.select(res_one, one, out)
    return lax.select(bad, _c(a, np.nan), out)


def _upcast(fn):
    """Inputs broadcast to one shape, half precision computed in float32 (JAX's
    _up_and_broadcast)."""
    def wrapped(*args):
        shape = np.broadcast_shapes(*(np.shape(v) for v in args))
        args = [v if np.shape(v) == shape else
                shapes.broadcast_in_dim(v, shape, tuple(range(len(shape) - np.ndim(v),
                                                              len(shape))))
                for v in args]
        dtype = core.get_aval(args[0]).dtype
        if dtypes.finfo(dtype).bits < 32:
            args = [lax.convert_element_type(v, np.float32) for v in args]
            return lax.convert_element_type(fn(*args), dtype)
        return fn(*args)
    return wrapped


lowering.lowerings[lax.igamma_p] = mlir.lower_fun(_upcast(igamma_value), multiple_results=False)
lowering.lowerings[lax.igammac_p] = mlir.lower_fun(_upcast(igammac_value),
                                                   multiple_results=False)
lowering.lowerings[lax.regularized_incomplete_beta_p] = mlir.lower_fun(
    _upcast(betainc_value), multiple_results=False)
