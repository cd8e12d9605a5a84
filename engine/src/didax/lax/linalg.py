"""`jax.lax.linalg`: matrix factorizations and solves with lax's conventions."""

from didax._src.lax_linalg import EighImplementation as EighImplementation
from didax._src.lax_linalg import EigImplementation as EigImplementation
from didax._src.lax_linalg import SvdAlgorithm as SvdAlgorithm
from didax._src.lax_linalg import cholesky as cholesky
from didax._src.lax_linalg import eig as eig
from didax._src.lax_linalg import eig_p as eig_p
from didax._src.lax_linalg import eigh as eigh
from didax._src.lax_linalg import eigh_p as eigh_p
from didax._src.lax_linalg import lu as lu
from didax._src.lax_linalg import lu_pivots_to_permutation as lu_pivots_to_permutation
from didax._src.lax_linalg import qr as qr
from didax._src.lax_linalg import qr_p as qr_p
from didax._src.lax_linalg import schur as schur
from didax._src.lax_linalg import schur_p as schur_p
from didax._src.lax_linalg import svd as svd
from didax._src.lax_linalg import svd_p as svd_p
from didax._src.lax_linalg import symmetric_product as symmetric_product
from didax._src.lax_linalg import triangular_solve as triangular_solve
from didax._src.lax_linalg import tridiagonal_solve as tridiagonal_solve
from didax._src.missing import module_getattr as _module_getattr  # noqa: E402

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.lax.linalg", __name__)
