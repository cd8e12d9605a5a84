"""`jax.scipy.stats.bernoulli`: cdf, logpmf, pmf, ppf; re-exports."""

from didax._src.scipy.stats_more import bernoulli as _dist

cdf = _dist.cdf
logpmf = _dist.logpmf
pmf = _dist.pmf
ppf = _dist.ppf
