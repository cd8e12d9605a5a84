"""`jax.scipy.stats.wrapcauchy`: logpdf, pdf."""

from didax._src.scipy.stats_extra import wrapcauchy as _dist

logpdf = _dist.logpdf
pdf = _dist.pdf
