"""jax.scipy.linalg against JAX: factorizations (Cholesky, LU with LAPACK pivots),
triangular, Cholesky and LU solves in every `trans`/`lower` form, expm, block_diag and the
SciPy spellings of the jnp.linalg functions; values, dtypes and weak types, gradients
(eager and under jit), batching."""

import didax
import jax
import jax.scipy.linalg  # noqa: F401 - makes jax.scipy.linalg available
import numpy as np
import pytest
from oracle import same, x64_mode

F32 = np.float32
RNG = np.random.default_rng(7)
A = RNG.normal(size=(4, 4)).astype(F32)
S = (A @ A.T + 4 * np.eye(4)).astype(F32)
T = (A + 3 * np.eye(4)).astype(F32)
B = RNG.normal(size=(4, 2)).astype(F32)
b = RNG.normal(size=(4,)).astype(F32)

CASES = {
    "solve_triangular_upper_vec": lambda sl: sl.solve_triangular(T, b),
    "solve_triangular_lower": lambda sl: sl.solve_triangular(T, B, lower=True),
    "solve_triangular_trans": lambda sl: sl.solve_triangular(T, B, trans=1),
    "solve_triangular_conj_lower": lambda sl: sl.solve_triangular(T, B, trans="C", lower=True),
    "solve_triangular_unit": lambda sl: sl.solve_triangular(A, B, lower=True,
                                                            unit_diagonal=True),
    "cholesky": lambda sl: (sl.cholesky(S), sl.cholesky(S, lower=True)),
    "cho_solve": lambda sl: (sl.cho_solve(sl.cho_factor(S), b),
                             sl.cho_solve(sl.cho_factor(S, lower=True), B)),
    "lu_factor": lambda sl: sl.lu_factor(A),
    "lu_solve": lambda sl: (sl.lu_solve(sl.lu_factor(A), b),
                            sl.lu_solve(sl.lu_factor(A), B, trans=1)),
    "lu": lambda sl: (sl.lu(A), sl.lu(A, permute_l=True)),
    "expm": lambda sl: (sl.expm(A * 0.05), sl.expm(A * 0.5), sl.expm(A * 3)),
    "block_diag": lambda sl: sl.block_diag(np.ones((2, 2), F32), np.arange(3.0, dtype=F32),
                                           F32(5.0)),
    "spellings": lambda sl: (sl.solve(S, b, assume_a="pos"), sl.solve(A, B), sl.inv(S),
                             sl.det(A), sl.qr(A), sl.qr(A[:, :3], mode="economic"),
                             sl.svd(A, compute_uv=False), sl.eigh(S, eigvals_only=True)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_match_jax(name):
    same(lambda top, jnp, lax: CASES[name](top.scipy.linalg), scale=10.0)


GRADS = {
    "solve_triangular": lambda sl, jnp: lambda t: jnp.sum(sl.solve_triangular(t, B,
                                                                              lower=True)),
    "cho_solve": lambda sl, jnp: lambda s: jnp.sum(sl.cho_solve(sl.cho_factor(s), b)),
    "cholesky_upper": lambda sl, jnp: lambda s: jnp.sum(jnp.sin(sl.cholesky(s))),
    "lu_solve": lambda sl, jnp: lambda a: jnp.sum(sl.lu_solve(sl.lu_factor(a), B)),
    "expm": lambda sl, jnp: lambda a: jnp.sum(sl.expm(a * 0.3) ** 2),
}
ARGS = {"solve_triangular": T, "cho_solve": S, "cholesky_upper": S, "lu_solve": A,
        "expm": A}


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients_match_jax(name, jit):
    def call(top, jnp, lax):
        g = top.grad(GRADS[name](top.scipy.linalg, jnp))
        return (top.jit(g) if jit else g)(ARGS[name])
    same(call, scale=10.0)


def test_batched_solves_match_jax():
    same(lambda top, jnp, lax: top.vmap(
        lambda t, v: top.scipy.linalg.solve_triangular(t, v, lower=True))(
            np.stack([T, T.T]), np.stack([b, 2 * b])))


def test_expm_float64_matches_jax():
    with x64_mode(True):
        same(lambda top, jnp, lax: top.scipy.linalg.expm(A.astype(np.float64) * 2))


def test_non_square_lu_is_a_declared_gap():
    import didax
    with pytest.raises(NotImplementedError, match="non-square"):
        didax.scipy.linalg.lu(A[:, :3])


def test_block_diag_rejects_3d():
    with pytest.raises(ValueError):
        jax.scipy.linalg.block_diag(np.ones((2, 2, 2)))
    import didax
    with pytest.raises(ValueError):
        didax.scipy.linalg.block_diag(np.ones((2, 2, 2)))


def test_toeplitz_and_trapezoid_match_jax():
    import didax.scipy.integrate as dsi
    import jax.scipy.integrate as jsi
    cases = [(np.array([1, 2, 3]),), (np.array([1.0, 2.0], np.float32),
                                     np.array([1.0, 5.0, 6.0], np.float32)),
             (np.array([[1, 2, 3], [4, 5, 6]]),), (np.array([1 + 1j, 2 - 1j], np.complex64),),
             (3.0,)]
    for args in cases:
        got, want = didax.scipy.linalg.toeplitz(*args), jax.scipy.linalg.toeplitz(*args)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    g = didax.grad(lambda c: didax.scipy.linalg.toeplitz(c).sum())(np.arange(3.0, dtype=np.float32))
    np.testing.assert_array_equal(g, jax.grad(lambda c: jax.scipy.linalg.toeplitz(c).sum())(
        np.arange(3.0, dtype=np.float32)))
    y, x = np.array([1, 2, 3]), np.array([0, 2, 5])
    assert float(dsi.trapezoid(y, x)) == float(jsi.trapezoid(y, x))
