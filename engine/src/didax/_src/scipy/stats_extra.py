"""The rest of `jax.scipy.stats`: truncnorm, gennorm, wrapcauchy, betabinom and
multinomial, `poisson.entropy`, and the sample statistics `mode` and `rankdata` — written with the formulas
JAX uses (jax/_src/scipy/stats/), so values and derivatives match.

May import core, dtypes, lax, jit and numpy (the implementation modules) and scipy.
"""

from __future__ import annotations

import math
import types
from typing import NamedTuple

import numpy as np

from didax._src import dtypes
from didax._src.lax import lax, sorting
from didax._src.lax.control_flow.conditionals import cond
from didax._src.numpy import array_creation as ac
from didax._src.numpy import indexing as jix
from didax._src.numpy import lax_numpy as ln
from didax._src.numpy import manipulation as man
from didax._src.numpy import reductions as red
from didax._src.numpy import setops
from didax._src.numpy import ufuncs as uf
from didax._src.numpy import ufuncs_math as um
from didax._src.numpy.util import (
    canonicalize_axis,
    check_arraylike,
    jit_like_jax,
    promote_args_inexact,
    promote_args_numeric,
    promote_dtypes_inexact,
)
from didax._src.numpy.vectorize import apply_along_axis, vmap_simple
from didax._src.scipy import special
from didax._src.scipy import stats as _base


def _c(x, v):
    return lax._const(x, v)


def _exp_of(logf):
    return lambda *a, **k: lax.exp(logf(*a, **k))


# ---- truncnorm -------------------------------------------------------------------------


def _log_diff(x, y):
    """log(exp(x) - exp(y)), stably."""
    return special.logsumexp(man.stack([x, y]), axis=0,
                             b=man.stack([ac.ones_like(x), -ac.ones_like(y)]))


def _log_gauss_mass(a, b):
    """log P(a < Z < b) for a standard normal Z, accurate in both tails."""
    a, b = man.broadcast_arrays(ac.asarray(a), ac.asarray(b))
    left, right = b <= 0, a > 0
    central = uf.logical_not(uf.logical_or(left, right))
    tail = _log_diff(special.log_ndtr(ln.where(right, -a, b)),
                     special.log_ndtr(ln.where(right, -b, a)))
    mass_central = um.log1p(-special.ndtr(a) - special.ndtr(-b))
    return ln.where(central, mass_central, tail)


@jit_like_jax("logpdf", eager_compiled=True)
def _truncnorm_logpdf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = promote_args_inexact("truncnorm.logpdf", x, a, b, loc, scale)
    val = lax.sub(_base.norm.logpdf(x, loc, scale), _log_gauss_mass(a, b))
    z = lax.div(lax.sub(x, loc), scale)
    val = ln.where(uf.logical_or(z < a, z > b), -np.inf, val)
    return ln.where(a >= b, np.nan, val)


@jit_like_jax("logcdf", eager_compiled=True)
def _truncnorm_logcdf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = promote_args_inexact("truncnorm.logcdf", x, a, b, loc, scale)
    x, a, b = man.broadcast_arrays(x, a, b)
    x = lax.div(lax.sub(x, loc), scale)
    mass = _log_gauss_mass(a, b)
    logcdf = _log_gauss_mass(a, x) - mass
    logsf = _log_gauss_mass(x, b) - mass
    # near 1, 1 - sf is the more accurate form
    out = ln.select([x >= b, x <= a, logcdf > -0.1, x > a],
                    [0, -np.inf, um.log1p(-um.exp(logsf)), logcdf])
    return ln.where(a >= b, np.nan, out)


@jit_like_jax("logsf", eager_compiled=True)
def _truncnorm_logsf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = promote_args_inexact("truncnorm.logsf", x, a, b, loc, scale)
    return _truncnorm_logcdf(-x, -b, -a, -loc, scale)


# (loc and scale passed on explicitly, as JAX does: they become arguments of the inner jit)
def _truncnorm_pdf(x, a, b, loc=0, scale=1):
    return lax.exp(_truncnorm_logpdf(x, a, b, loc, scale))


@jit_like_jax("cdf", eager_compiled=True)
def _truncnorm_cdf(x, a, b, loc=0, scale=1):
    return lax.exp(_truncnorm_logcdf(x, a, b, loc, scale))


@jit_like_jax("sf", eager_compiled=True)
def _truncnorm_sf(x, a, b, loc=0, scale=1):
    return lax.exp(_truncnorm_logsf(x, a, b, loc, scale))


truncnorm = types.SimpleNamespace(
    logpdf=_truncnorm_logpdf, pdf=_truncnorm_pdf, logcdf=_truncnorm_logcdf,
    cdf=_truncnorm_cdf, logsf=_truncnorm_logsf, sf=_truncnorm_sf)

# ---- gennorm, wrapcauchy ---------------------------------------------------------------


def _gennorm_logpdf(x, beta):
    x, beta = promote_args_inexact("gennorm.logpdf", x, beta)
    return lax.log(0.5 * beta) - lax.lgamma(1 / beta) - lax.abs(x) ** beta


def _gennorm_cdf(x, beta):
    x, beta = promote_args_inexact("gennorm.cdf", x, beta)
    return 0.5 * (1 + lax.sign(x) * special.gammainc(1 / beta, lax.abs(x) ** beta))


gennorm = types.SimpleNamespace(logpdf=_gennorm_logpdf, pdf=_exp_of(_gennorm_logpdf),
                                cdf=_gennorm_cdf)


def _wrapcauchy_logpdf(x, c):
    x, c = promote_args_inexact("wrapcauchy.logpdf", x, c)
    x, c = ac.asarray(x), ac.asarray(c)  # (arrays: c * c rounds in float32, as in JAX)
    valid_c = uf.logical_and(c > _c(c, 0), c < _c(c, 1))
    on_circle = uf.logical_and(x >= _c(x, 0), x <= _c(x, 2 * np.pi))
    val = (um.log(1 - c * c) - um.log(2 * np.pi)
           - um.log(1 + c * c - 2 * c * um.cos(x)))
    return ln.where(valid_c, ln.where(on_circle, val, -np.inf), np.nan)


wrapcauchy = types.SimpleNamespace(logpdf=_wrapcauchy_logpdf,
                                   pdf=_exp_of(_wrapcauchy_logpdf))

# ---- betabinom, multinomial ------------------------------------------------------------


@jit_like_jax("logpmf", eager_compiled=True)
def _betabinom_logpmf(k, n, a, b, loc=0):
    k, n, a, b, loc = promote_args_inexact("betabinom.logpmf", k, n, a, b, loc)
    y = lax.sub(lax.floor(k), loc)
    one, zero = _c(y, 1), _c(y, 0)
    log_comb = lax.neg(lax.add(lax.log1p(n), special.betaln(n - y + one, y + one)))
    log_beta = lax.sub(special.betaln(y + a, n - y + b), special.betaln(a, b))
    out = ln.where(uf.logical_and(y == zero, n == zero), 0.0, log_comb + log_beta)
    outside = uf.logical_or(uf.logical_or(y < -loc, y > n), y + a <= zero)
    out = ln.where(outside, -np.inf, out)
    bad = uf.logical_or(uf.logical_or(n < zero, a <= zero), b <= zero)
    return ln.where(bad, np.nan, out)


def _betabinom_pmf(k, n, a, b, loc=0):
    return lax.exp(_betabinom_logpmf(k, n, a, b, loc))


betabinom = types.SimpleNamespace(logpmf=_betabinom_logpmf, pmf=_betabinom_pmf)


def _multinomial_logpmf(x, n, p):
    p, = promote_args_inexact("multinomial.logpmf", p)
    x, n = promote_args_numeric("multinomial.logpmf", x, n)
    if not dtypes.issubdtype(x.dtype, np.integer):
        raise ValueError("x and n must be of integer type; "
                         f"got x.dtype={x.dtype}, n.dtype={n.dtype}")
    x, n = (lax.convert_element_type(v, p.dtype) for v in (x, n))
    logprobs = special.gammaln(n + 1) + red.sum(
        special.xlogy(x, p) - special.gammaln(x + 1), axis=-1)
    return ln.where(red.sum(x) == n, logprobs, -np.inf)


multinomial = types.SimpleNamespace(logpmf=_multinomial_logpmf,
                                    pmf=_exp_of(_multinomial_logpmf))

# ---- poisson.entropy -------------------------------------------------------------------


def _poisson_entropy_sum(mu, max_k: int, upper):
    """-sum p log p over k < min(max_k, upper) (the tail beyond is negligible)."""
    k = ac.arange(max_k, dtype=mu.dtype)[:, None]
    probs = _base.poisson.pmf(k, mu, 0)
    probs = ln.where(k < um.ceil(upper).astype(k.dtype)[None, :], probs, 0.0)
    return red.sum(special.entr(probs), axis=0)


@jit_like_jax("entropy", eager_compiled=True)
def poisson_entropy(mu, loc=0):
    """The entropy of the Poisson distribution: exact sums for mu < 100, the asymptotic
    expansion 0.5 log(2 pi e mu) - 1/(12 mu) above."""
    check_arraylike("poisson.entropy", mu, loc)
    mu, loc = promote_dtypes_inexact(ac.asarray(mu), ac.asarray(loc))
    shape = np.broadcast_shapes(mu.shape, loc.shape)
    flat = man.ravel(mu)
    small = _poisson_entropy_sum(flat, 35, flat + 20)
    medium = _poisson_entropy_sum(flat, 250, flat + 10 * um.sqrt(flat) + 20)
    large = 0.5 * um.log(2 * np.pi * np.e * flat) - 1.0 / (12 * flat)
    out = ln.where(flat == 0, ac.zeros_like(flat),
                   ln.where(flat < 10, small, ln.where(flat < 100, medium, large)))
    return man.broadcast_to(out.reshape(mu.shape), shape)


# ---- mode, rankdata --------------------------------------------------------------------


class ModeResult(NamedTuple):
    mode: object
    count: object


def _check_nan_policy(name: str, nan_policy: str) -> None:
    if nan_policy not in ("propagate", "omit", "raise"):
        raise ValueError(f"Illegal nan_policy value {nan_policy!r}; expected one of "
                         "{'propagate', 'omit', 'raise'}")
    if nan_policy == "omit":
        raise NotImplementedError(f"Logic for `nan_policy` of {nan_policy} is not implemented")
    if nan_policy == "raise":
        raise NotImplementedError(
            f"In order to best JIT compile `{name}`, we cannot know whether `x` contains "
            f"nans. Please check if nans exist in `x` outside of the `{name}` function.")


def _mode_1d(x):
    if x.size == 0:
        nan = ac.asarray(np.nan, dtype=dtypes.default_float_dtype())
        return nan, ac.asarray(0, dtype=dtypes.default_float_dtype())
    vals, counts = setops.unique(x, return_counts=True, size=x.size)
    return vals[red.argmax(counts)], red.max(counts)


@jit_like_jax("mode", static_argnames=("axis", "nan_policy", "keepdims"), eager_compiled=True)
def mode(a, axis: int | None = 0, nan_policy: str = "propagate", keepdims: bool = False):
    """The most common value along axis (the smallest among ties) and its count."""
    check_arraylike("mode", a)
    x = man.atleast_1d(a)
    _check_nan_policy("mode", nan_policy)
    if axis is None:
        out_shape = (1,) * x.ndim if keepdims else ()
        x, axis = man.ravel(x), 0
    else:
        axis = canonicalize_axis(axis, x.ndim)
        out_shape = tuple(1 if i == axis else s for i, s in enumerate(x.shape)
                          if keepdims or i != axis)
    x = man.moveaxis(x, axis, 0)
    x = x.reshape(x.shape[0], math.prod(x.shape[1:]))
    vals, counts = vmap_simple(_mode_1d, (1,))(x)
    return ModeResult(vals.reshape(out_shape), counts.reshape(out_shape))


def _ranks(a, method: str):
    out_dtype = dtypes.default_float_dtype()
    arr, sorter = sorting.sort_key_val(a, ac.arange(a.size))
    inv = ac.empty_like(sorter).at[sorter].set(ac.arange(a.size, dtype=sorter.dtype))
    if method == "ordinal":
        return (inv + 1).astype(out_dtype)
    first = man.concatenate([ac.array([True]), arr[1:] != arr[:-1]])
    dense = red.cumsum(first)[inv]
    if method == "dense":
        return dense.astype(out_dtype)
    count = jix.nonzero(first, size=arr.size + 1, fill_value=first.size)[0].astype(out_dtype)
    if method == "max":
        return count[dense]
    if method == "min":
        return count[dense - 1] + 1
    return 0.5 * (count[dense] + count[dense - 1] + 1)


@jit_like_jax("rankdata", static_argnames=("method", "axis", "nan_policy"), eager_compiled=True)
def rankdata(a, method: str = "average", *, axis: int | None = None,
             nan_policy: str = "propagate"):
    """Ranks from 1 of the data (ties by `method`: average, min, max, dense, ordinal)."""
    check_arraylike("rankdata", a)
    _check_nan_policy("rankdata", nan_policy)
    if method not in ("average", "min", "max", "dense", "ordinal"):
        raise ValueError(f"unknown method '{method}'")
    if axis is not None:
        return apply_along_axis(rankdata, axis, a, method)
    a = man.ravel(a)
    return cond(red.any(um.isnan(a)),
                lambda v: ac.full_like(v, np.nan, dtypes.default_float_dtype()),
                lambda v: _ranks(v, method), a)
