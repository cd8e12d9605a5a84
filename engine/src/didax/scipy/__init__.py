"""`didax.scipy`: JAX's jax.scipy subset (special functions, statistical distributions,
linear algebra, signal processing)."""

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402
from didax.scipy import integrate as integrate
from didax.scipy import linalg as linalg
from didax.scipy import optimize as optimize
from didax.scipy import signal as signal
from didax.scipy import sparse as sparse
from didax.scipy import special as special
from didax.scipy import stats as stats

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.scipy", __name__)
