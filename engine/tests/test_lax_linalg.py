"""jax.lax.linalg against JAX: cholesky, eigh (v, w), svd (u, s, vh), qr, lu (lu, pivots,
permutation), eig, schur, every triangular_solve flag combination, tridiagonal_solve and
symmetric_product — values, dtypes, derivatives and jit."""

import didax
import jax
import numpy as np
import pytest

RNG = np.random.default_rng(6)
A = RNG.normal(size=(4, 4)).astype(np.float32)
S = (A @ A.T + 4 * np.eye(4)).astype(np.float32)
B = RNG.normal(size=(4, 3)).astype(np.float32)
R = RNG.normal(size=(3, 4)).astype(np.float32)
UPPER = np.triu(A) + 3 * np.eye(4, dtype=np.float32)
LOWER = np.tril(A) + 3 * np.eye(4, dtype=np.float32)


def cases(m):
    L, n = m.lax.linalg, m.numpy
    dl, d = n.array([0.0, 1.0, 2.0, 0.5]), n.array([4.0, 5.0, 6.0, 7.0])
    du = n.array([1.0, -1.0, 0.5, 0.0])
    out = [L.cholesky(S), L.cholesky(S + n.triu(A, 1), symmetrize_input=False), *L.eigh(S),
           *L.svd(A), L.svd(B, compute_uv=False), *L.svd(B, full_matrices=False), *L.qr(B),
           *L.qr(B, full_matrices=False), *L.lu(A),
           L.lu_pivots_to_permutation(n.array([2, 2, 3], dtype=n.int32), 5),
           *L.eig(A, compute_left_eigenvectors=False), *L.schur(A),
           L.triangular_solve(UPPER, n.arange(4.0), left_side=True),
           L.tridiagonal_solve(dl, d, du, B),
           L.symmetric_product(B, S, alpha=2.0, beta=0.5, symmetrize_output=True),
           m.grad(lambda v: n.sum(L.tridiagonal_solve(dl, v, du, B)))(d),
           m.grad(lambda s: n.sum(L.cholesky(s)))(S),
           m.jit(lambda a, b: L.triangular_solve(a, b, left_side=True))(UPPER, B)]
    for left in (True, False):
        for lower in (True, False):
            for transpose in (True, False):
                out.append(L.triangular_solve(LOWER if lower else UPPER, B if left else R,
                                              left_side=left, lower=lower,
                                              transpose_a=transpose))
    return out


def test_lax_linalg_as_jax():
    for a, b in zip(cases(didax), cases(jax), strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape, (a, b)
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-4, atol=1e-4)


def test_unsupported_options_say_so():
    with pytest.raises(NotImplementedError, match="left eigenvectors"):
        didax.lax.linalg.eig(A)
    with pytest.raises(NotImplementedError, match="jax.lax.linalg.householder_product"):
        didax.lax.linalg.householder_product  # noqa: B018
