"""`jax.scipy.stats.vonmises`: logpdf, pdf."""

from didax._src.scipy.stats_more import vonmises as _dist

logpdf = _dist.logpdf
pdf = _dist.pdf
