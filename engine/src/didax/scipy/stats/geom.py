"""`jax.scipy.stats.geom`: logpmf, pmf; re-exports."""

from didax._src.scipy.stats_more import geom as _dist

logpmf = _dist.logpmf
pmf = _dist.pmf
