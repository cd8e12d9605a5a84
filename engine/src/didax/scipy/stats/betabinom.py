"""`jax.scipy.stats.betabinom`: logpmf, pmf."""

from didax._src.scipy.stats_extra import betabinom as _dist

logpmf = _dist.logpmf
pmf = _dist.pmf
