"""Lowerings of the regularized incomplete gamma functions `igamma` (P) and `igammac` (Q),
which StableHLO/CHLO lack: the power series for P where x < 1 or x < a, else the continued
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
from didax._src.lax.lax import _const
from didax._src.lax.control_flow import while_loop


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


def _upcast(fn):
    """Inputs broadcast to one shape, half precision computed in float32 (JAX's
    _up_and_broadcast)."""
    def wrapped(a, x):
        shape = np.broadcast_shapes(np.shape(a), np.shape(x))
        a, x = (v if np.shape(v) == shape else
                shapes.broadcast_in_dim(v, shape, tuple(range(len(shape) - np.ndim(v),
                                                              len(shape))))
                for v in (a, x))
        dtype = core.get_aval(a).dtype
        if dtypes.finfo(dtype).bits < 32:
            a, x = (lax.convert_element_type(v, np.float32) for v in (a, x))
            return lax.convert_element_type(fn(a, x), dtype)
        return fn(a, x)
    return wrapped


lowering.lowerings[lax.igamma_p] = mlir.lower_fun(_upcast(igamma_value), multiple_results=False)
lowering.lowerings[lax.igammac_p] = mlir.lower_fun(_upcast(igammac_value),
                                                   multiple_results=False)
