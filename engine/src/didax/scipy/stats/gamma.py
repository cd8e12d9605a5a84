"""`jax.scipy.stats.gamma`: cdf, logcdf, logpdf, logsf, pdf, sf; re-exports."""

from didax._src.scipy.stats_more import gamma as _dist

cdf = _dist.cdf
logcdf = _dist.logcdf
logpdf = _dist.logpdf
logsf = _dist.logsf
pdf = _dist.pdf
sf = _dist.sf
