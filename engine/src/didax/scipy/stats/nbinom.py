"""`jax.scipy.stats.nbinom`: logpmf, pmf; re-exports."""

from didax._src.scipy.stats_more import nbinom as _dist

logpmf = _dist.logpmf
pmf = _dist.pmf
