"""`jax.scipy.stats.truncnorm`: cdf, logcdf, logpdf, logsf, pdf, sf."""

from didax._src.scipy.stats_extra import truncnorm as _dist

cdf = _dist.cdf
logcdf = _dist.logcdf
logpdf = _dist.logpdf
logsf = _dist.logsf
pdf = _dist.pdf
sf = _dist.sf
