"""jax.scipy.linalg schur, hessenberg, rsf2csf, sqrtm, funm and eigh_tridiagonal
(eigenvalues) against JAX: values, dtypes, batches, jit and vmap."""

import didax
import jax
import numpy as np
import pytest
from oracle import assert_tree_matches

RNG = np.random.default_rng(3)
A = RNG.normal(size=(5, 5)).astype(np.float32)
S = (A @ A.T + 5 * np.eye(5)).astype(np.float32)
AB = RNG.normal(size=(2, 4, 4)).astype(np.float32)


def cases(m):
    L, n = m.scipy.linalg, m.numpy
    d, e = n.array([1.0, 2.0, 3.0, 4.0]), n.array([0.5, -1.0, 2.0])
    return {
        "schur_hessenberg": lambda: (L.schur(A), L.schur(A, "complex"), L.schur(AB),
                                     L.hessenberg(A), L.hessenberg(AB, calc_q=True),
                                     L.rsf2csf(*L.schur(A))),
        "sqrtm_funm": lambda: (L.sqrtm(S), L.sqrtm(A), L.funm(A, n.exp), L.funm(S, n.sqrt),
                               L.funm(A, lambda x: x * x, disp=False)),
        "eigh_tridiagonal": lambda: (L.eigh_tridiagonal(d, e, eigvals_only=True),
                                     L.eigh_tridiagonal(d, e, eigvals_only=True, select="i",
                                                        select_range=(1, 2))),
        "transformed": lambda: (m.jit(L.sqrtm)(S), m.jit(L.schur)(A), m.vmap(L.hessenberg)(AB)),
    }


@pytest.mark.parametrize("name", list(cases(jax)))
def test_as_jax(name):
    assert_tree_matches(cases(didax)[name](), cases(jax)[name](), scale=100.0, what=name)


def test_sqrtm_squares_back_and_no_derivative():
    r = np.asarray(didax.scipy.linalg.sqrtm(S))
    np.testing.assert_allclose(r @ r, S, atol=1e-4)
    with pytest.raises(Exception, match="schur"):
        didax.grad(lambda a: didax.numpy.sum(didax.scipy.linalg.schur(a)[0]))(A)
    with pytest.raises(NotImplementedError, match="eigvals_only=True"):
        didax.scipy.linalg.eigh_tridiagonal(np.ones(3), np.ones(2))
