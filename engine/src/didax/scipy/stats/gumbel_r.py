"""`jax.scipy.stats.gumbel_r`: cdf, logcdf, logpdf, logsf, pdf, ppf, sf; re-exports."""

from didax._src.scipy.stats_more import gumbel_r as _dist

cdf = _dist.cdf
logcdf = _dist.logcdf
logpdf = _dist.logpdf
logsf = _dist.logsf
pdf = _dist.pdf
ppf = _dist.ppf
sf = _dist.sf
