"""`jax.scipy.stats.t`: logpdf, pdf; re-exports."""

from didax._src.scipy.stats_more import t as _dist

logpdf = _dist.logpdf
pdf = _dist.pdf
