"""`jax.scipy.stats.beta`: logpdf, pdf; re-exports."""

from didax._src.scipy.stats_more import beta as _dist

logpdf = _dist.logpdf
pdf = _dist.pdf
