"""`jax.scipy.stats.beta`: logpdf, pdf, cdf, sf, logcdf, logsf; re-exports."""

from didax._src.scipy.stats_more import beta as _dist

logpdf = _dist.logpdf
pdf = _dist.pdf
cdf = _dist.cdf
sf = _dist.sf
logcdf = _dist.logcdf
logsf = _dist.logsf
