"""`jax.scipy.stats.binom`: logpmf, pmf; re-exports."""

from didax._src.scipy.stats_more import binom as _dist

logpmf = _dist.logpmf
pmf = _dist.pmf
