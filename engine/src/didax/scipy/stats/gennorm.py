"""`jax.scipy.stats.gennorm`: cdf, logpdf, pdf."""

from didax._src.scipy.stats_extra import gennorm as _dist

cdf = _dist.cdf
logpdf = _dist.logpdf
pdf = _dist.pdf
