"""`didax.scipy`: JAX's jax.scipy subset (special functions, statistical distributions)."""

from didax.scipy import special as special
from didax.scipy import stats as stats
