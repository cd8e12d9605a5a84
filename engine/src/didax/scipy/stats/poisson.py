"""`jax.scipy.stats.poisson`: cdf, entropy, logpmf, pmf; re-exports."""

from didax._src.scipy.stats_extra import poisson_entropy as _entropy
from didax._src.scipy.stats_more import poisson as _dist

cdf = _dist.cdf
entropy = _entropy
logpmf = _dist.logpmf
pmf = _dist.pmf
