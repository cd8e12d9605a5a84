"""More of `jax.scipy.stats`: Student's t, gamma, chi2, beta (densities), pareto,
gumbel_r/gumbel_l, geom, binom, nbinom, dirichlet, and the functions JAX has for expon,
laplace, logistic, cauchy, uniform, bernoulli and poisson beyond their densities — each
written with lax as JAX writes it (the same formulas, so values, derivatives and jaxprs
match).

May import core, dtypes, lax, numpy (the implementation modules) and scipy.special
(scipy.special_more registers the incomplete-beta lowering).
"""

from __future__ import annotations

import types

import numpy as np

from didax._src.lax import lax
from didax._src.lax.select_convert import clamp as _clamp
from didax._src.numpy import lax_numpy as jnp_core
from didax._src.numpy import manipulation as manip
from didax._src.numpy import reductions as red
from didax._src.numpy import ufuncs_math
from didax._src.numpy.util import promote_args_inexact, promote_dtypes_inexact
from didax._src.scipy import special
from didax._src.scipy import special_loops as _loops  # noqa: F401 - registers lowerings
from didax._src.scipy import stats as _base
from didax._src.scipy.special_more import i0e


def _c(x, v):
    return lax._const(x, v)


def _where(c, x, y):
    return jnp_core.where(c, x, y)


def _exp_of(logf):
    return lambda *a, **k: lax.exp(logf(*a, **k))


def _log_of(f):
    return lambda *a, **k: lax.log(f(*a, **k))


def gammaincc(a, x):
    """The regularized upper incomplete gamma function, 1 - gammainc(a, x)."""
    a, x = promote_args_inexact("gammaincc", a, x)
    return lax.sub(_c(x, 1), special.gammainc(a, x))


# ---- t -------------------------------------------------------------------------------


def _t_logpdf(x, df, loc=0, scale=1):
    x, df, loc, scale = promote_args_inexact("t.logpdf", x, df, loc, scale)
    two = _c(x, 2)
    scaled_x = lax.div(lax.sub(x, loc), scale)
    df_over_two = lax.div(df, two)
    df_plus_one_over_two = lax.add(df_over_two, _c(x, 0.5))
    normalize_term_const = lax.mul(lax.mul(scale, scale), _c(x, np.pi))
    normalize_term_tmp = lax.div(lax.log(lax.mul(normalize_term_const, df)), two)
    normalize_term = lax.sub(lax.add(lax.lgamma(df_over_two), normalize_term_tmp),
                             lax.lgamma(df_plus_one_over_two))
    quadratic = lax.div(lax.mul(scaled_x, scaled_x), df)
    return lax.neg(lax.add(normalize_term,
                           lax.mul(df_plus_one_over_two, lax.log1p(quadratic))))


t = types.SimpleNamespace(logpdf=_t_logpdf, pdf=_exp_of(_t_logpdf))

# ---- gamma, chi2 -----------------------------------------------------------------------


def _gamma_logpdf(x, a, loc=0, scale=1):
    x, a, loc, scale = promote_args_inexact("gamma.logpdf", x, a, loc, scale)
    ok = lax.ge(x, loc)
    one = _c(x, 1)
    y = _where(ok, lax.div(lax.sub(x, loc), scale), one)
    log_linear_term = lax.sub(special.xlogy(lax.sub(a, one), y), y)
    shape_terms = lax.add(special.gammaln(a), lax.log(scale))
    return _where(ok, lax.sub(log_linear_term, shape_terms), -np.inf)


def _clamp0(x, v):
    return lax.clamp(_c(x, 0), v, _c(x, np.inf))


def _gamma_cdf(x, a, loc=0, scale=1):
    x, a, loc, scale = promote_args_inexact("gamma.cdf", x, a, loc, scale)
    return special.gammainc(a, _clamp0(x, lax.div(lax.sub(x, loc), scale)))


def _gamma_sf(x, a, loc=0, scale=1):
    x, a, loc, scale = promote_args_inexact("gamma.sf", x, a, loc, scale)
    y = lax.div(lax.sub(x, loc), scale)
    return _where(lax.lt(y, _c(y, 0)), 1, gammaincc(a, y))


gamma = types.SimpleNamespace(
    logpdf=_gamma_logpdf, pdf=_exp_of(_gamma_logpdf), cdf=_gamma_cdf,
    logcdf=_log_of(_gamma_cdf), sf=_gamma_sf, logsf=_log_of(_gamma_sf))


def _chi2_logpdf(x, df, loc=0, scale=1):
    x, df, loc, scale = promote_args_inexact("chi2.logpdf", x, df, loc, scale)
    one, two = _c(x, 1), _c(x, 2)
    y = lax.div(lax.sub(x, loc), scale)
    df_on_two = lax.div(df, two)
    kernel = lax.sub(lax.mul(lax.sub(df_on_two, one), lax.log(y)), lax.div(y, two))
    nrml_cnst = lax.neg(lax.add(lax.lgamma(df_on_two),
                                lax.div(lax.mul(lax.log(two), df), two)))
    log_probs = lax.add(lax.sub(nrml_cnst, lax.log(scale)), kernel)
    return _where(lax.lt(x, loc), -np.inf, log_probs)


def _chi2_cdf(x, df, loc=0, scale=1):
    x, df, loc, scale = promote_args_inexact("chi2.cdf", x, df, loc, scale)
    two = _c(scale, 2)
    return special.gammainc(lax.div(df, two),
                            _clamp0(x, lax.div(lax.sub(x, loc), lax.mul(scale, two))))


def _chi2_sf(x, df, loc=0, scale=1):
    x, df, loc, scale = promote_args_inexact("chi2.sf", x, df, loc, scale)
    two = _c(scale, 2)
    return gammaincc(lax.div(df, two),
                     _clamp0(x, lax.div(lax.sub(x, loc), lax.mul(scale, two))))


chi2 = types.SimpleNamespace(
    logpdf=_chi2_logpdf, pdf=_exp_of(_chi2_logpdf), cdf=_chi2_cdf,
    logcdf=_log_of(_chi2_cdf), sf=_chi2_sf, logsf=_log_of(_chi2_sf))

# ---- beta ----------------------------------------------------------------------------


def _beta_logpdf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = promote_args_inexact("beta.logpdf", x, a, b, loc, scale)
    one, zero = _c(x, 1), _c(a, 0)
    shape_term = lax.neg(special.betaln(a, b))
    y = lax.div(lax.sub(x, loc), scale)
    log_linear_term = lax.add(special.xlogy(lax.sub(a, one), y),
                              special.xlog1py(lax.sub(b, one), lax.neg(y)))
    log_probs = lax.sub(lax.add(shape_term, log_linear_term), lax.log(scale))
    outside = lax.bitwise_or(lax.gt(x, lax.add(loc, scale)), lax.lt(x, loc))
    result = _where(outside, -np.inf, log_probs)
    bad = lax.bitwise_or(lax.bitwise_or(lax.le(a, zero), lax.le(b, zero)),
                         lax.le(scale, zero))
    return _where(bad, np.nan, result)


def _vonmises_logpdf(x, kappa):
    x, kappa = promote_args_inexact("vonmises.logpdf", x, kappa)
    log_norm = lax.log(2 * np.pi * i0e(kappa))
    return _where(lax.gt(kappa, _c(kappa, 0)), kappa * (lax.cos(x) - 1) - log_norm, np.nan)


vonmises = types.SimpleNamespace(logpdf=_vonmises_logpdf, pdf=_exp_of(_vonmises_logpdf))


def _beta_unit(x, loc, scale):
    return _clamp(_c(x, 0), lax.div(lax.sub(x, loc), scale), _c(x, 1))


def _beta_cdf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = promote_args_inexact("beta.cdf", x, a, b, loc, scale)
    return lax.betainc(a, b, _beta_unit(x, loc, scale))


def _beta_sf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = promote_args_inexact("beta.sf", x, a, b, loc, scale)
    return lax.betainc(b, a, 1 - _beta_unit(x, loc, scale))


beta = types.SimpleNamespace(
    logpdf=_beta_logpdf, pdf=_exp_of(_beta_logpdf), cdf=_beta_cdf, sf=_beta_sf,
    logcdf=lambda *args, **kw: lax.log(_beta_cdf(*args, **kw)),
    logsf=lambda *args, **kw: lax.log(_beta_sf(*args, **kw)))

# ---- pareto --------------------------------------------------------------------------


def _pareto_logpdf(x, b, loc=0, scale=1):
    x, b, loc, scale = promote_args_inexact("pareto.logpdf", x, b, loc, scale)
    one = _c(x, 1)
    scaled_x = lax.div(lax.sub(x, loc), scale)
    normalize_term = lax.log(lax.div(scale, b))
    log_probs = lax.neg(lax.add(normalize_term, lax.mul(lax.add(b, one), lax.log(scaled_x))))
    return _where(lax.lt(x, lax.add(loc, scale)), -np.inf, log_probs)


def _pareto_cdf(x, b, loc=0, scale=1):
    x, b, loc, scale = promote_args_inexact("pareto.cdf", x, b, loc, scale)
    scaled_x = lax.div(lax.sub(x, loc), scale)
    cdf = lax.sub(_c(x, 1), lax.pow(scaled_x, lax.neg(b)))
    return _where(lax.lt(x, lax.add(loc, scale)), _c(x, 0), cdf)


def _pareto_logcdf(x, b, loc=0, scale=1):
    x, b, loc, scale = promote_args_inexact("pareto.logcdf", x, b, loc, scale)
    scaled_x = lax.div(lax.sub(x, loc), scale)
    val = lax.log1p(lax.neg(lax.pow(scaled_x, lax.neg(b))))
    return _where(lax.lt(x, lax.add(loc, scale)), -np.inf, val)


def _pareto_logsf(x, b, loc=0, scale=1):
    x, b, loc, scale = promote_args_inexact("pareto.logsf", x, b, loc, scale)
    scaled_x = lax.div(lax.sub(x, loc), scale)
    val = lax.neg(lax.mul(b, lax.log(scaled_x)))
    return _where(lax.lt(x, lax.add(loc, scale)), _c(x, 0), val)


def _pareto_ppf(q, b, loc=0, scale=1):
    q, b, loc, scale = promote_args_inexact("pareto.ppf", q, b, loc, scale)
    one = _c(q, 1)
    val = lax.add(loc, lax.mul(scale, lax.pow(lax.sub(one, q), lax.neg(lax.div(one, b)))))
    bad = ufuncs_math.isnan(q) | (q < 0) | (q > 1)
    return _where(bad, np.nan, val)


pareto = types.SimpleNamespace(
    logpdf=_pareto_logpdf, pdf=_exp_of(_pareto_logpdf), cdf=_pareto_cdf,
    logcdf=_pareto_logcdf, logsf=_pareto_logsf, sf=_exp_of(_pareto_logsf), ppf=_pareto_ppf)

# ---- gumbel_r, gumbel_l ----------------------------------------------------------------


def _log1mexp(x):
    """log(1 - exp(-x)) for x > 0, accurate on both sides of log(2)."""
    return _where(x > np.log(2), lax.log1p(lax.neg(lax.exp(lax.neg(x)))),
                  lax.log(lax.neg(lax.expm1(lax.neg(x)))))


def _gumbel_prep(fn, x, loc, scale):
    x, loc, scale = promote_args_inexact(fn, x, loc, scale)
    return lax.div(lax.sub(x, loc), scale), lax.gt(scale, _c(scale, 0)), loc, scale


def _gumbel_r_logpdf(x, loc=0, scale=1):
    z, ok, loc, scale = _gumbel_prep("gumbel_r.logpdf", x, loc, scale)
    val = lax.add(special.xlogy(-1, scale), lax.neg(lax.add(z, lax.exp(lax.neg(z)))))
    return _where(ok, val, np.nan)


def _gumbel_r_logcdf(x, loc=0, scale=1):
    z, ok, _, _ = _gumbel_prep("gumbel_r.logcdf", x, loc, scale)
    return _where(ok, lax.neg(lax.exp(lax.neg(z))), np.nan)


def _gumbel_r_ppf(p, loc=0, scale=1):
    p, loc, scale = promote_args_inexact("gumbel_r.ppf", p, loc, scale)
    ok = lax.bitwise_and(lax.gt(p, _c(p, 0)), lax.lt(p, _c(p, 1)))
    t = lax.mul(scale, lax.log(special.xlogy(-1, p)))
    return _where(ok, lax.sub(loc, t), np.nan)


def _gumbel_r_sf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("gumbel_r.sf", x, loc, scale)
    ok = lax.gt(scale, _c(scale, 0))
    t1 = lax.exp(lax.neg(lax.exp(lax.div(lax.sub(loc, x), scale))))
    return _where(ok, lax.sub(_c(x, 1), t1), np.nan)


def _gumbel_r_logsf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("gumbel_r.logsf", x, loc, scale)
    ok = lax.gt(scale, _c(scale, 0))
    return _where(ok, _log1mexp(lax.exp(lax.div(lax.sub(loc, x), scale))), np.nan)


gumbel_r = types.SimpleNamespace(
    logpdf=_gumbel_r_logpdf, pdf=_exp_of(_gumbel_r_logpdf), logcdf=_gumbel_r_logcdf,
    cdf=_exp_of(_gumbel_r_logcdf), ppf=_gumbel_r_ppf, sf=_gumbel_r_sf, logsf=_gumbel_r_logsf)


def _gumbel_l_logpdf(x, loc=0, scale=1):
    z, ok, loc, scale = _gumbel_prep("gumbel_l.logpdf", x, loc, scale)
    return _where(ok, lax.add(special.xlogy(-1, scale), lax.sub(z, lax.exp(z))), np.nan)


def _gumbel_l_logcdf(x, loc=0, scale=1):
    z, ok, _, _ = _gumbel_prep("gumbel_l.logcdf", x, loc, scale)
    return _where(ok, lax.log(-lax.expm1(lax.neg(lax.exp(z)))), np.nan)


def _gumbel_l_ppf(p, loc=0, scale=1):
    p, loc, scale = promote_args_inexact("gumbel_l.ppf", p, loc, scale)
    ok = lax.bitwise_and(lax.gt(p, _c(p, 0)), lax.lt(p, _c(p, 1)))
    t = lax.mul(scale, lax.log(special.xlog1py(-1, lax.neg(p))))
    return _where(ok, lax.add(loc, t), np.nan)


def _gumbel_l_logsf(x, loc=0, scale=1):
    z, ok, _, _ = _gumbel_prep("gumbel_l.logsf", x, loc, scale)
    return _where(ok, lax.neg(lax.exp(z)), np.nan)


gumbel_l = types.SimpleNamespace(
    logpdf=_gumbel_l_logpdf, pdf=_exp_of(_gumbel_l_logpdf), logcdf=_gumbel_l_logcdf,
    cdf=_exp_of(_gumbel_l_logcdf), ppf=_gumbel_l_ppf, logsf=_gumbel_l_logsf,
    sf=_exp_of(_gumbel_l_logsf))

# ---- discrete: geom, binom, nbinom --------------------------------------------------------


def _geom_logpmf(k, p, loc=0):
    k, p, loc = promote_args_inexact("geom.logpmf", k, p, loc)
    zero, one = _c(k, 0), _c(k, 1)
    x = lax.sub(k, loc)
    log_probs = special.xlog1py(lax.sub(x, one), -p) + lax.log(p)
    return _where(lax.le(x, zero), -np.inf, log_probs)


geom = types.SimpleNamespace(logpmf=_geom_logpmf, pmf=_exp_of(_geom_logpmf))


def _binom_logpmf(k, n, p, loc=0):
    k, n, p, loc = promote_args_inexact("binom.logpmf", k, n, p, loc)
    y = lax.sub(k, loc)
    zero = _c(y, 0)
    comb_term = lax.sub(special.gammaln(n + 1),
                        lax.add(special.gammaln(y + 1), special.gammaln(n - y + 1)))
    log_linear_term = lax.add(special.xlogy(y, p), special.xlog1py(lax.sub(n, y), lax.neg(p)))
    log_probs = lax.add(comb_term, log_linear_term)
    y_n_cond = lax.bitwise_or(lax.bitwise_and(lax.eq(y, zero), lax.eq(n, zero)),
                              lax.eq(log_linear_term, zero))
    log_probs = _where(y_n_cond, 0., log_probs)
    return _where(lax.ge(k, loc) & lax.lt(k, loc + n + 1), log_probs, -np.inf)


binom = types.SimpleNamespace(logpmf=_binom_logpmf, pmf=_exp_of(_binom_logpmf))


def _nbinom_logpmf(k, n, p, loc=0):
    k, n, p, loc = promote_args_inexact("nbinom.logpmf", k, n, p, loc)
    one = _c(k, 1)
    y = lax.sub(k, loc)
    comb_term = lax.sub(lax.sub(special.gammaln(lax.add(y, n)), special.gammaln(n)),
                        special.gammaln(lax.add(y, one)))
    log_linear_term = lax.add(special.xlogy(n, p), special.xlogy(y, lax.sub(one, p)))
    return _where(lax.lt(k, loc), -np.inf, lax.add(comb_term, log_linear_term))


nbinom = types.SimpleNamespace(logpmf=_nbinom_logpmf, pmf=_exp_of(_nbinom_logpmf))

# ---- dirichlet -----------------------------------------------------------------------


def _dirichlet_logpdf(x, alpha):
    x, alpha = promote_dtypes_inexact(x, alpha)
    if alpha.ndim != 1:
        raise ValueError(f"`alpha` must be one-dimensional; got alpha.shape={alpha.shape}")
    if x.shape[0] not in (alpha.shape[0], alpha.shape[0] - 1):
        raise ValueError("`x` must have either the same number of entries as `alpha` or one "
                         f"entry fewer; got x.shape={x.shape}, alpha.shape={alpha.shape}")
    one = _c(x, 1)
    if x.shape[0] != alpha.shape[0]:
        x = manip.concatenate([x, lax.sub(one, red.sum(x, 0, keepdims=True))], axis=0)
    normalize_term = red.sum(special.gammaln(alpha)) - special.gammaln(red.sum(alpha))
    if x.ndim > 1:
        alpha = lax.broadcast_in_dim(alpha, alpha.shape + (1,) * (x.ndim - 1), (0,))
    log_probs = lax.sub(red.sum(special.xlogy(lax.sub(alpha, one), x), axis=0),
                        normalize_term)
    simplex = red.all(x > 0, axis=0) & (abs(red.sum(x, axis=0) - 1) < 1e-6)
    return _where(simplex, log_probs, -np.inf)


dirichlet = types.SimpleNamespace(logpdf=_dirichlet_logpdf, pdf=_exp_of(_dirichlet_logpdf))

# ---- the rest of expon, laplace, logistic, cauchy, uniform, bernoulli, poisson --------------


def _expon_logsf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("expon.sf", x, loc, scale)
    neg_scaled_x = lax.div(lax.sub(loc, x), scale)
    return _where(lax.lt(x, loc), lax.full_like(neg_scaled_x, 0), neg_scaled_x)


def _expon_logcdf(x, loc=0, scale=1):
    return lax.log1p(lax.neg(lax.exp(_expon_logsf(x, loc, scale))))


def _expon_ppf(q, loc=0, scale=1):
    q, loc, scale = promote_args_inexact("expon.ppf", q, loc, scale)
    bad = ufuncs_math.isnan(q) | (q < 0) | (q > 1)
    return _where(bad, np.nan, lax.sub(loc, lax.mul(scale, lax.log1p(lax.neg(q)))))


def _laplace_cdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("laplace.cdf", x, loc, scale)
    half, one, zero = _c(x, 0.5), _c(x, 1), _c(x, 0)
    diff = lax.div(lax.sub(x, loc), scale)
    return lax.select(lax.le(diff, zero), lax.mul(half, lax.exp(diff)),
                      lax.sub(one, lax.mul(half, lax.exp(lax.neg(diff)))))


def _logistic_ppf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("logistic.ppf", x, loc, scale)
    return lax.add(lax.mul(special.logit(x), scale), loc)


def _logistic_sf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("logistic.sf", x, loc, scale)
    return special.expit(lax.neg(lax.div(lax.sub(x, loc), scale)))


def _logistic_isf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("logistic.isf", x, loc, scale)
    return lax.add(lax.mul(lax.neg(special.logit(x)), scale), loc)


def _cauchy_cdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("cauchy.cdf", x, loc, scale)
    pi = _c(x, np.pi)
    scaled_x = lax.div(lax.sub(x, loc), scale)
    return lax.add(_c(x, 0.5), lax.mul(lax.div(_c(x, 1.0), pi), lax.atan(scaled_x)))


def _cauchy_sf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("cauchy.sf", x, loc, scale)
    return _cauchy_cdf(-x, -loc, scale)


def _cauchy_logsf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("cauchy.logsf", x, loc, scale)
    return lax.log(_cauchy_cdf(-x, -loc, scale))


def _cauchy_q(name, flip):
    def f(q, loc=0, scale=1):
        q, loc, scale = promote_args_inexact(name, q, loc, scale)
        pi, half_pi = _c(q, np.pi), _c(q, np.pi / 2)
        arg = lax.sub(half_pi, lax.mul(pi, q)) if flip else lax.sub(lax.mul(pi, q), half_pi)
        return lax.add(lax.mul(lax.tan(arg), scale), loc)
    return f


def _uniform_ppf(q, loc=0, scale=1):
    q, loc, scale = promote_args_inexact("uniform.ppf", q, loc, scale)
    bad = ufuncs_math.isnan(q) | (q < 0) | (q > 1)
    return _where(bad, np.nan, lax.add(loc, lax.mul(scale, q)))


def _bernoulli_cdf(k, p):
    k, p = promote_args_inexact("bernoulli.cdf", k, p)
    zero, one = _c(k, 0), _c(k, 1)
    bad = ufuncs_math.isnan(k) | ufuncs_math.isnan(p) | (p < zero) | (p > one)
    val = _where(lax.lt(k, zero), zero, _where(lax.lt(k, one), one - p, one))
    return _where(bad, np.nan, val)


def _bernoulli_ppf(q, p):
    q, p = promote_args_inexact("bernoulli.ppf", q, p)
    zero, one = _c(q, 0), _c(q, 1)
    bad = (ufuncs_math.isnan(q) | ufuncs_math.isnan(p) | (p < zero) | (p > one)
           | (q < zero) | (q > one))
    return _where(bad, np.nan, _where(lax.le(q, one - p), zero, one))


def _poisson_cdf(k, mu, loc=0):
    k, mu, loc = promote_args_inexact("poisson.logpmf", k, mu, loc)
    zero = _c(k, 0)
    x = lax.sub(k, loc)
    return _where(lax.lt(x, zero), zero, gammaincc(lax.floor(1 + x), mu))


def extended(base: types.SimpleNamespace, **more) -> types.SimpleNamespace:
    return types.SimpleNamespace(**{**vars(base), **more})


expon = extended(_base.expon, logsf=_expon_logsf, sf=_exp_of(_expon_logsf),
                 logcdf=_expon_logcdf, ppf=_expon_ppf)
laplace = extended(_base.laplace, cdf=_laplace_cdf)
logistic = extended(_base.logistic, ppf=_logistic_ppf, sf=_logistic_sf, isf=_logistic_isf)
cauchy = extended(_base.cauchy, cdf=_cauchy_cdf, logcdf=_log_of(_cauchy_cdf), sf=_cauchy_sf,
                  logsf=_cauchy_logsf, isf=_cauchy_q("cauchy.isf", True),
                  ppf=_cauchy_q("cauchy.ppf", False))
uniform = extended(_base.uniform, ppf=_uniform_ppf)
bernoulli = extended(_base.bernoulli, cdf=_bernoulli_cdf, ppf=_bernoulli_ppf)
poisson = extended(_base.poisson, cdf=_poisson_cdf)
norm = _base.norm
multivariate_normal = _base.multivariate_normal
