"""`jax.scipy.stats.dirichlet`: logpdf, pdf; re-exports."""

from didax._src.scipy.stats_more import dirichlet as _dist

logpdf = _dist.logpdf
pdf = _dist.pdf
