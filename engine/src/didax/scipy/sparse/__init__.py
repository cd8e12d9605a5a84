"""`jax.scipy.sparse`: the iterative linear solvers of `jax.scipy.sparse.linalg`."""

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402
from didax.scipy.sparse import linalg as linalg

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.scipy.sparse", __name__)
