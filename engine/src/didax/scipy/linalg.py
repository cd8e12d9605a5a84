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
from didax._src.scipy.linalg_schur import eigh_tridiagonal as eigh_tridiagonal
from didax._src.scipy.linalg_schur import funm as funm
from didax._src.scipy.linalg_schur import hessenberg as hessenberg
from didax._src.scipy.linalg_schur import rsf2csf as rsf2csf
from didax._src.scipy.linalg_schur import schur as schur
from didax._src.scipy.linalg_schur import sqrtm as sqrtm
from didax._src.scipy.linalg_special import circulant as circulant
from didax._src.scipy.linalg_special import companion as companion
from didax._src.scipy.linalg_special import convolution_matrix as convolution_matrix
from didax._src.scipy.linalg_special import dft as dft
from didax._src.scipy.linalg_special import expm_frechet as expm_frechet
from didax._src.scipy.linalg_special import fiedler as fiedler
from didax._src.scipy.linalg_special import fiedler_companion as fiedler_companion
from didax._src.scipy.linalg_special import hadamard as hadamard
from didax._src.scipy.linalg_special import hankel as hankel
from didax._src.scipy.linalg_special import helmert as helmert
from didax._src.scipy.linalg_special import hilbert as hilbert
from didax._src.scipy.linalg_special import invhilbert as invhilbert
from didax._src.scipy.linalg_special import invpascal as invpascal
from didax._src.scipy.linalg_special import leslie as leslie
from didax._src.scipy.linalg_special import pascal as pascal
from didax._src.scipy.linalg_special import polar as polar
from didax._src.scipy.linalg_special import qr_multiply as qr_multiply
from didax._src.scipy.linalg_special import solve_sylvester as solve_sylvester

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.scipy.linalg", __name__)
