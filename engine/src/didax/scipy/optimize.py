"""`jax.scipy.optimize`: `minimize` (method="BFGS") and its `OptimizeResults`."""

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402
from didax._src.scipy_optimize import OptimizeResults as OptimizeResults
from didax._src.scipy_optimize import minimize as minimize

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.scipy.optimize", __name__)
