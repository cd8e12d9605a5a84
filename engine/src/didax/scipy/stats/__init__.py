"""`jax.scipy.stats`: distributions as modules of functions (`stats.norm.logpdf`,
`import jax.scipy.stats.norm as norm`), `gaussian_kde` and `sem`; re-exports."""

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402
from didax._src.scipy.stats_extra import mode as mode
from didax._src.scipy.stats_extra import rankdata as rankdata
from didax._src.scipy_kde import gaussian_kde as gaussian_kde
from didax._src.scipy_kde import sem as sem
from didax.scipy.stats import bernoulli as bernoulli
from didax.scipy.stats import beta as beta
from didax.scipy.stats import betabinom as betabinom
from didax.scipy.stats import binom as binom
from didax.scipy.stats import cauchy as cauchy
from didax.scipy.stats import chi2 as chi2
from didax.scipy.stats import dirichlet as dirichlet
from didax.scipy.stats import expon as expon
from didax.scipy.stats import gamma as gamma
from didax.scipy.stats import gennorm as gennorm
from didax.scipy.stats import geom as geom
from didax.scipy.stats import gumbel_l as gumbel_l
from didax.scipy.stats import gumbel_r as gumbel_r
from didax.scipy.stats import laplace as laplace
from didax.scipy.stats import logistic as logistic
from didax.scipy.stats import multinomial as multinomial
from didax.scipy.stats import multivariate_normal as multivariate_normal
from didax.scipy.stats import nbinom as nbinom
from didax.scipy.stats import norm as norm
from didax.scipy.stats import pareto as pareto
from didax.scipy.stats import poisson as poisson
from didax.scipy.stats import t as t
from didax.scipy.stats import truncnorm as truncnorm
from didax.scipy.stats import uniform as uniform
from didax.scipy.stats import vonmises as vonmises
from didax.scipy.stats import wrapcauchy as wrapcauchy

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.scipy.stats", __name__)
