"""`jax.scipy.stats.uniform`: cdf, logpdf, pdf, ppf; re-exports."""

from didax._src.scipy.stats_more import uniform as _dist

cdf = _dist.cdf
logpdf = _dist.logpdf
pdf = _dist.pdf
ppf = _dist.ppf
