"""`jax.scipy.stats.cauchy`: cdf, isf, logcdf, logpdf, logsf, pdf, ppf, sf; re-exports."""

from didax._src.scipy.stats_more import cauchy as _dist

cdf = _dist.cdf
isf = _dist.isf
logcdf = _dist.logcdf
logpdf = _dist.logpdf
logsf = _dist.logsf
pdf = _dist.pdf
ppf = _dist.ppf
sf = _dist.sf
