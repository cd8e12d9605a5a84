"""`jax.scipy.sparse.linalg`: conjugate gradients and BiCGSTAB (GMRES is not implemented:
use `bicgstab`)."""

from didax._src.linear_solve import bicgstab as bicgstab
from didax._src.linear_solve import cg as cg
from didax._src.missing import module_getattr as _module_getattr  # noqa: E402

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.scipy.sparse.linalg", __name__)
