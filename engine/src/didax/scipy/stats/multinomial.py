"""`jax.scipy.stats.multinomial`: logpmf, pmf."""

from didax._src.scipy.stats_extra import multinomial as _dist

logpmf = _dist.logpmf
pmf = _dist.pmf
