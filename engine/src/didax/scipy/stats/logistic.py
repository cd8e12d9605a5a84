"""`jax.scipy.stats.logistic`: cdf, isf, logpdf, pdf, ppf, sf; re-exports."""

from didax._src.scipy.stats_more import logistic as _dist

cdf = _dist.cdf
isf = _dist.isf
logpdf = _dist.logpdf
pdf = _dist.pdf
ppf = _dist.ppf
sf = _dist.sf
