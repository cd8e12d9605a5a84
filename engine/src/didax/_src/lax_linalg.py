"""`jax.lax.linalg`: the factorizations with lax's conventions — `cholesky` (lower, of the
symmetrized input), `eigh` returning (v, w), `svd` returning (u, s, vh), `qr`, `lu`
returning (lu, pivots, permutation), `eig`, `schur`, `triangular_solve` with its
left_side/transpose_a/conjugate_a flags, `tridiagonal_solve`, `symmetric_product` and
`lu_pivots_to_permutation` — over didax's primitives and jnp/scipy implementations.

May import dtypes, lax, numpy (the implementation modules) and scipy (linalg modules).
"""

from __future__ import annotations

import enum

import numpy as np

from didax._src import dtypes
from didax._src.numpy import array_creation as ac
from didax._src.numpy import linalg as jla
from didax._src.numpy import linalg_decomp as jld
from didax._src.numpy import linalg_eig
from didax._src.numpy import manipulation as man
from didax._src.numpy import products as prod
from didax._src.numpy import ufuncs_math as um
from didax._src.numpy.util import promote_dtypes_inexact
from didax._src.scipy import linalg as sla
from didax._src.scipy import linalg_schur

eigh_p, svd_p, qr_p = jld.eigh_p, jld.svd_p, jld.qr_p
eig_p, schur_p = linalg_eig.eig_p, linalg_schur.schur_p


class EigImplementation(enum.Enum):
    """Which eig implementation to use (didax always runs LAPACK on the host)."""

    LAPACK = "lapack"
    MAGMA = "magma"


class EighImplementation(enum.Enum):
    """Which eigh implementation to use (didax always runs LAPACK on the host)."""

    QR = "qr"
    JACOBI = "jacobi"
    QDWH = "qdwh"


class SvdAlgorithm(enum.Enum):
    """Which SVD algorithm to use (didax always runs LAPACK's on the host)."""

    DEFAULT = "default"
    QR = "QR"
    JACOBI = "Jacobi"
    POLAR = "polar"


def _mH(x):
    return um.conj(man.swapaxes(x, -1, -2))


def symmetrize(x):
    """(x + x^H) / 2."""
    return (x + _mH(x)) / 2


def cholesky(x, *, symmetrize_input: bool = True):
    """The lower Cholesky factor L (x = L L^H); without symmetrize_input only the lower
    triangle of x is read."""
    x, = promote_dtypes_inexact(ac.asarray(x))
    if not symmetrize_input:
        x = prod.tril(x) + _mH(prod.tril(x, -1))
    return jla.cholesky(x, symmetrize_input=symmetrize_input)


def eigh(x, *, lower: bool = True, symmetrize_input: bool = True,
         sort_eigenvalues: bool = True, subset_by_index=None, implementation=None):
    """(v, w): eigenvectors (columns) and ascending eigenvalues of a Hermitian matrix."""
    x, = promote_dtypes_inexact(ac.asarray(x))
    if symmetrize_input:
        x = symmetrize(x)
    v, w = eigh_p.bind(x, lower=lower, sort_eigenvalues=sort_eigenvalues,
                       subset_by_index=subset_by_index, algorithm=implementation)
    return v, w


def svd(x, *, full_matrices: bool = True, compute_uv: bool = True, subset_by_index=None,
        algorithm=None):
    """(u, s, vh), or s alone without compute_uv."""
    x, = promote_dtypes_inexact(ac.asarray(x))
    out = svd_p.bind(x, full_matrices=full_matrices, compute_uv=compute_uv,
                     subset_by_index=subset_by_index, algorithm=algorithm)
    if not compute_uv:
        return out[0]
    s, u, vh = out
    return u, s, vh


def qr(x, *, pivoting: bool = False, full_matrices: bool = True, use_magma=None):
    """(q, r) with x = q r (q square with full_matrices, else reduced)."""
    if pivoting:
        raise NotImplementedError("jax.lax.linalg.qr(pivoting=True) is not implemented in "
                                  "didax; use pivoting=False instead.")
    x, = promote_dtypes_inexact(ac.asarray(x))
    q, r = qr_p.bind(x, pivoting=False, full_matrices=full_matrices, use_magma=use_magma)
    return q, r


def eig(x, *, compute_left_eigenvectors: bool = True, compute_right_eigenvectors: bool = True,
        enable_eigvec_derivs: bool = False, implementation=None, use_magma=None):
    """[w] plus the right eigenvectors (didax computes right eigenvectors only)."""
    if compute_left_eigenvectors:
        raise NotImplementedError(
            "jax.lax.linalg.eig with left eigenvectors is not implemented in didax; use "
            "compute_left_eigenvectors=False (or jnp.linalg.eig) instead.")
    x, = promote_dtypes_inexact(ac.asarray(x))
    return eig_p.bind(x, compute_left_eigenvectors=False,
                      compute_right_eigenvectors=compute_right_eigenvectors,
                      enable_eigvec_derivs=enable_eigvec_derivs, implementation=None)


def schur(x, *, compute_schur_vectors: bool = True, sort_eig_vals: bool = False,
          select_callable=None):
    """[T, Q] with x = Q T Q^H ([T] without compute_schur_vectors): a list, as JAX's."""
    del sort_eig_vals, select_callable
    t, q = schur_p.bind(ac.asarray(x))
    return [t, q] if compute_schur_vectors else [t]


def lu_pivots_to_permutation(pivots, permutation_size: int):
    """The row permutation made by applying LAPACK's row swaps `pivots` in order."""
    pivots = ac.asarray(pivots, dtype=np.int32)
    k = pivots.shape[-1]
    if permutation_size < k:
        raise ValueError("Output permutation size must be at least the number of pivots")
    pad = man.broadcast_to(ac.arange(k, permutation_size, dtype=np.int32),
                           pivots.shape[:-1] + (permutation_size - k,))
    return sla._perm_of(man.concatenate([pivots, pad], axis=-1))


def lu(x):
    """(lu, pivots, permutation): L (unit diagonal) and U packed, LAPACK's row swaps, and
    the resulting permutation (x[permutation] = L U)."""
    x, = promote_dtypes_inexact(ac.asarray(x))
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise NotImplementedError("jax.lax.linalg.lu of a non-square matrix is not "
                                  "implemented in didax; use a square matrix instead.")
    packed, perm, _ = jla._lu(x)
    return packed, sla._pivots_of(perm), perm


def triangular_solve(a, b, *, left_side: bool = False, lower: bool = False,
                     transpose_a: bool = False, conjugate_a: bool = False,
                     unit_diagonal: bool = False):
    """x with op(a) x = b (left_side) or x op(a) = b, op(a) = a, a^T, conj(a) or a^H."""
    a, b = promote_dtypes_inexact(ac.asarray(a), ac.asarray(b))
    conjugate_a = conjugate_a and dtypes.issubdtype(a.dtype, np.complexfloating)
    singleton = b.ndim == a.ndim - 1
    if singleton:
        b = man.expand_dims(b, -1 if left_side else -2)
    if conjugate_a:
        a = um.conj(a)
    if left_side:
        out = sla.solve_triangular(a, b, trans=1 if transpose_a else 0, lower=lower,
                                   unit_diagonal=unit_diagonal)
    else:  # x op(a) = b  <=>  op(a)^T x^T = b^T
        bt = man.swapaxes(b, -1, -2)
        out = man.swapaxes(sla.solve_triangular(a, bt, trans=0 if transpose_a else 1,
                                                lower=lower, unit_diagonal=unit_diagonal),
                           -1, -2)
    if singleton:
        out = out[..., 0] if left_side else out[..., 0, :]
    return out


def tridiagonal_solve(dl, d, du, b, *, perturb_singular: bool = False):
    """x with A x = b for the tridiagonal A with sub-, main and super-diagonals dl, d, du
    (dl[0] and du[-1] ignored); b has shape (..., m, k)."""
    del perturb_singular
    dl, d, du, b = (ac.asarray(v) for v in (dl, d, du, b))
    if dl.shape != d.shape or du.shape != d.shape or b.shape[:-1] != d.shape:
        raise ValueError("tridiagonal_solve requires that all diagonal arguments have the "
                         f"same shape (..., m) and b shape (..., m, k); got dl={dl.shape}, "
                         f"d={d.shape}, du={du.shape}, b={b.shape}")
    return jla.solve(_tridiagonal_dense(dl, d, du), b)


def _tridiagonal_dense(dl, d, du):
    m = d.shape[-1]
    lower = ac.eye(m, k=-1, dtype=d.dtype)
    upper = ac.eye(m, k=1, dtype=d.dtype)
    # row i holds dl[i] at column i-1, d[i] at i, du[i] at i+1
    return (d[..., :, None] * ac.eye(m, dtype=d.dtype) + dl[..., :, None] * lower
            + du[..., :, None] * upper)


def symmetric_product(a_matrix, c_matrix, *, alpha: float = 1.0, beta: float = 0.0,
                      symmetrize_output: bool = False):
    """alpha a a^T + beta c (c symmetric)."""
    a, c = ac.asarray(a_matrix), ac.asarray(c_matrix)
    out = alpha * prod.matmul(a, man.swapaxes(a, -1, -2)) + beta * c
    if symmetrize_output:
        out = prod.tril(out) + man.swapaxes(prod.tril(out, -1), -1, -2)
    return out
