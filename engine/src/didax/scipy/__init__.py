"""`didax.scipy`: JAX's jax.scipy subset (special functions, statistical distributions,
linear algebra, signal processing)."""

from didax.scipy import linalg as linalg
from didax.scipy import signal as signal
from didax.scipy import special as special
from didax.scipy import stats as stats
