"""`jax.scipy.stats.multivariate_normal`: logpdf, pdf; re-exports."""

from didax._src.scipy.stats_more import multivariate_normal as _dist

logpdf = _dist.logpdf
pdf = _dist.pdf
