"""`jax.scipy.stats.laplace`: cdf, logpdf, pdf; re-exports."""

from didax._src.scipy.stats_more import laplace as _dist

cdf = _dist.cdf
logpdf = _dist.logpdf
pdf = _dist.pdf
