"""`jax.scipy.stats`: distributions as namespaces of functions (`stats.norm.logpdf`)."""

from didax._src.scipy.stats import bernoulli as bernoulli
from didax._src.scipy.stats import cauchy as cauchy
from didax._src.scipy.stats import expon as expon
from didax._src.scipy.stats import laplace as laplace
from didax._src.scipy.stats import logistic as logistic
from didax._src.scipy.stats import multivariate_normal as multivariate_normal
from didax._src.scipy.stats import norm as norm
from didax._src.scipy.stats import poisson as poisson
from didax._src.scipy.stats import uniform as uniform
