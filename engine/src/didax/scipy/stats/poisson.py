"""`jax.scipy.stats.poisson`: cdf, logpmf, pmf; re-exports."""

from didax._src.scipy.stats_more import poisson as _dist

cdf = _dist.cdf
logpmf = _dist.logpmf
pmf = _dist.pmf
