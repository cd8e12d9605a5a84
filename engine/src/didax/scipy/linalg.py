"""`jax.scipy.linalg`: factorizations and solves with SciPy's names and conventions."""

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402
from didax._src.scipy.linalg import block_diag as block_diag
from didax._src.scipy.linalg import cho_factor as cho_factor
from didax._src.scipy.linalg import cho_solve as cho_solve
from didax._src.scipy.linalg import cholesky as cholesky
from didax._src.scipy.linalg import det as det
from didax._src.scipy.linalg import eigh as eigh
from didax._src.scipy.linalg import expm as expm
from didax._src.scipy.linalg import inv as inv
from didax._src.scipy.linalg import lu as lu
from didax._src.scipy.linalg import lu_factor as lu_factor
from didax._src.scipy.linalg import lu_solve as lu_solve
from didax._src.scipy.linalg import qr as qr
from didax._src.scipy.linalg import solve as solve
from didax._src.scipy.linalg import solve_triangular as solve_triangular
from didax._src.scipy.linalg import svd as svd
from didax._src.scipy.linalg import toeplitz as toeplitz

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.scipy.linalg", __name__)
