"""`jax.scipy.stats`: densities, distribution functions and quantiles of the common
distributions (norm, uniform, expon, laplace, logistic, cauchy, bernoulli, poisson,
multivariate_normal), written with lax as JAX writes them, so they differentiate, batch
and compile like any other program.

May import core, dtypes, lax, numpy (the implementation modules) and scipy.special.
"""

from __future__ import annotations

import types

import numpy as np

from didax._src.lax import lax
from didax._src.numpy import lax_numpy as jnp_core
from didax._src.numpy import linalg as jla
from didax._src.numpy import reductions as red
from didax._src.numpy import ufuncs_math
from didax._src.numpy.util import promote_args_inexact, promote_dtypes_inexact
from didax._src.scipy import special


def _c(x, v):
    return lax._const(x, v)


# ---- norm ------------------------------------------------------------------------------


def _norm_logpdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("norm.logpdf", x, loc, scale)
    scale_sq = lax.square(scale)
    log_normalizer = lax.log(lax.mul(_c(x, 2 * np.pi), scale_sq))
    quadratic = lax.div(lax.square(lax.sub(x, loc)), scale_sq)
    return lax.div(lax.add(log_normalizer, quadratic), _c(x, -2))


def _norm_pdf(x, loc=0, scale=1):
    return lax.exp(_norm_logpdf(x, loc, scale))


def _standardized(name, x, loc, scale, upper=False):
    """(x - loc) / scale, or (loc - x) / scale for the upper tail."""
    x, loc, scale = promote_args_inexact(name, x, loc, scale)
    return lax.div(lax.sub(loc, x) if upper else lax.sub(x, loc), scale)


def _norm_cdf(x, loc=0, scale=1):
    return special.ndtr(_standardized("norm.cdf", x, loc, scale))


def _norm_logcdf(x, loc=0, scale=1):
    return special.log_ndtr(_standardized("norm.logcdf", x, loc, scale))


def _norm_sf(x, loc=0, scale=1):
    return special.ndtr(_standardized("norm.sf", x, loc, scale, upper=True))


def _norm_logsf(x, loc=0, scale=1):
    return special.log_ndtr(_standardized("norm.logsf", x, loc, scale, upper=True))


def _norm_ppf(q, loc=0, scale=1):
    q, loc, scale = promote_args_inexact("norm.ppf", q, loc, scale)
    return lax.add(lax.mul(special.ndtri(q), scale), loc)


def _norm_isf(q, loc=0, scale=1):
    q, loc, scale = promote_args_inexact("norm.isf", q, loc, scale)
    return lax.add(lax.mul(lax.neg(special.ndtri(q)), scale), loc)


norm = types.SimpleNamespace(logpdf=_norm_logpdf, pdf=_norm_pdf, cdf=_norm_cdf,
                             logcdf=_norm_logcdf, sf=_norm_sf, logsf=_norm_logsf,
                             ppf=_norm_ppf, isf=_norm_isf)

# ---- uniform, expon, laplace, logistic, cauchy ----------------------------------------------


def _uniform_logpdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("uniform.logpdf", x, loc, scale)
    log_probs = lax.neg(lax.log(scale))
    outside = lax.bitwise_or(lax.lt(x, loc), lax.lt(lax.add(loc, scale), x))
    return jnp_core.where(outside, -np.inf, log_probs)


def _uniform_cdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("uniform.cdf", x, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    return lax.clamp(_c(z, 0), z, _c(z, 1))


uniform = types.SimpleNamespace(logpdf=_uniform_logpdf,
                                pdf=lambda *a, **k: lax.exp(_uniform_logpdf(*a, **k)),
                                cdf=_uniform_cdf)


def _expon_logpdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("expon.logpdf", x, loc, scale)
    log_scale = lax.log(scale)
    linear = lax.div(lax.sub(x, loc), scale)
    log_probs = lax.neg(lax.add(linear, log_scale))
    return jnp_core.where(lax.lt(x, loc), -np.inf, log_probs)


def _expon_cdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("expon.cdf", x, loc, scale)
    neg_scaled = lax.div(lax.sub(loc, x), scale)
    return jnp_core.where(lax.lt(x, loc), _c(x, 0), lax.neg(lax.expm1(neg_scaled)))


expon = types.SimpleNamespace(logpdf=_expon_logpdf,
                              pdf=lambda *a, **k: lax.exp(_expon_logpdf(*a, **k)),
                              cdf=_expon_cdf)


def _laplace_logpdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("laplace.logpdf", x, loc, scale)
    two = _c(x, 2)
    linear = lax.div(lax.abs(lax.sub(x, loc)), scale)
    return lax.neg(lax.add(linear, lax.log(lax.mul(two, scale))))


laplace = types.SimpleNamespace(logpdf=_laplace_logpdf,
                                pdf=lambda *a, **k: lax.exp(_laplace_logpdf(*a, **k)))


def _logistic_logpdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("logistic.logpdf", x, loc, scale)
    x = lax.div(lax.sub(x, loc), scale)
    two = _c(x, 2)
    half_x = lax.div(x, two)
    return lax.sub(lax.mul(lax.neg(two), ufuncs_math.logaddexp(half_x, lax.neg(half_x))),
                   lax.log(scale))


def _logistic_cdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("logistic.cdf", x, loc, scale)
    return special.expit(lax.div(lax.sub(x, loc), scale))


logistic = types.SimpleNamespace(logpdf=_logistic_logpdf,
                                 pdf=lambda *a, **k: lax.exp(_logistic_logpdf(*a, **k)),
                                 cdf=_logistic_cdf)


def _cauchy_logpdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("cauchy.logpdf", x, loc, scale)
    pi = _c(x, np.pi)
    scaled_x = lax.div(lax.sub(x, loc), scale)
    normalize_term = lax.log(lax.mul(pi, scale))
    return lax.neg(lax.add(normalize_term, lax.log1p(lax.mul(scaled_x, scaled_x))))


cauchy = types.SimpleNamespace(logpdf=_cauchy_logpdf,
                               pdf=lambda *a, **k: lax.exp(_cauchy_logpdf(*a, **k)))

# ---- discrete: bernoulli, poisson -----------------------------------------------------------


def _bernoulli_logpmf(k, p, loc=0):
    k, p, loc = promote_args_inexact("bernoulli.logpmf", k, p, loc)
    zero, one = _c(k, 0), _c(k, 1)
    x = lax.sub(k, loc)
    log_probs = special.xlog1py(lax.sub(one, x), -p) + special.xlogy(x, p)
    outside = lax.bitwise_or(lax.lt(x, zero), lax.gt(x, one))
    return jnp_core.where(outside, -np.inf, log_probs)


bernoulli = types.SimpleNamespace(logpmf=_bernoulli_logpmf,
                                  pmf=lambda *a, **k: lax.exp(_bernoulli_logpmf(*a, **k)))


def _poisson_logpmf(k, mu, loc=0):
    k, mu, loc = promote_args_inexact("poisson.logpmf", k, mu, loc)
    zero = _c(k, 0)
    x = lax.sub(k, loc)
    log_probs = special.xlogy(x, mu) - special.gammaln(x + 1) - mu
    outside = lax.bitwise_or(lax.lt(x, zero), lax.ne(lax.round(k), k))
    return jnp_core.where(outside, -np.inf, log_probs)


poisson = types.SimpleNamespace(logpmf=_poisson_logpmf,
                                pmf=lambda *a, **k: lax.exp(_poisson_logpmf(*a, **k)))

# ---- multivariate_normal ------------------------------------------------------------------


def _mvn_logpdf(x, mean, cov, allow_singular=None):
    if allow_singular is not None:
        raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
    x, mean, cov = promote_dtypes_inexact(x, mean, cov)
    if not mean.shape:
        return lax.sub(lax.mul(_c(x, -0.5), lax.div(lax.square(lax.sub(x, mean)), cov)),
                       lax.mul(_c(x, 0.5), lax.log(lax.mul(_c(x, 2 * np.pi), cov))))
    n = mean.shape[-1]
    if not np.shape(cov):
        y = x - mean
        return lax.sub(lax.mul(_c(x, -0.5), lax.div(red.sum(lax.square(y), axis=-1), cov)),
                       lax.mul(_c(x, n / 2), lax.log(lax.mul(_c(x, 2 * np.pi), cov))))
    if cov.ndim < 2 or cov.shape[-2:] != (n, n):
        raise ValueError("multivariate_normal.logpdf got incompatible shapes")
    diff = x - mean
    _, logdet = jla.slogdet(cov)
    sol = jla.solve(cov, diff[..., None])[..., 0]
    quad = red.sum(lax.mul(diff, sol), axis=-1)
    return lax.mul(_c(x, -0.5), lax.add(lax.add(quad, logdet), _c(x, n * np.log(2 * np.pi))))


multivariate_normal = types.SimpleNamespace(
    logpdf=_mvn_logpdf, pdf=lambda *a, **k: lax.exp(_mvn_logpdf(*a, **k)))
