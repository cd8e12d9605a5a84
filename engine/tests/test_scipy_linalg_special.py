"""jax.scipy.linalg's special matrices (circulant ... pascal), polar, expm_frechet,
solve_sylvester and qr_multiply against JAX: values, dtypes, shapes, a derivative and
compilation."""

import didax
import jax
import numpy as np
import pytest
from oracle import assert_tree_matches

RNG = np.random.default_rng(2)
A, E = (RNG.normal(size=(4, 4)).astype(np.float32) for _ in range(2))
B = RNG.normal(size=(3, 3)).astype(np.float32)
C = RNG.normal(size=(4, 3)).astype(np.float32)
M = RNG.normal(size=(5, 3)).astype(np.float32)


def cases(m):
    L, n = m.scipy.linalg, m.numpy
    v, vi = n.array([1.0, -2.0, 3.0, 0.5]), n.array([1, 2, 3])
    return {
        "from_vectors": lambda: (
            L.circulant(v), L.circulant(n.stack([v, 2 * v])), L.circulant(vi),
            L.hankel(v), L.hankel(v, n.array([9.0, 8.0, 7.0])), L.hankel(vi, n.array([4.5, 1.0])),
            L.leslie(n.array([0.1, 2.0, 1.0, 0.1]), n.array([0.2, 0.8, 0.7])),
            L.companion(v), L.companion(vi), L.fiedler(v), L.fiedler(vi),
            *[L.fiedler_companion(n.arange(1.0, k + 1)) for k in (1, 2, 3, 6)],
            *[L.convolution_matrix(v, k, mode) for k in (2, 5)
              for mode in ("full", "same", "valid")]),
        "of_a_size": lambda: (
            L.hilbert(4), L.invhilbert(4), L.helmert(5), L.helmert(4, full=True),
            L.hadamard(8), L.hadamard(4, dtype=n.float32), L.dft(5), L.dft(4, "sqrtn"),
            L.dft(3, "n"), *[f(5, kind) for f in (L.pascal, L.invpascal)
                             for kind in (None, "lower", "upper")]),
        "factorizations": lambda: (
            L.polar(A), L.polar(M), L.polar(M.T, "left"), L.polar(M, method="svd", side="left"),
            L.expm_frechet(A * 0.3, E), L.expm_frechet(A * 0.3, E, compute_expm=False),
            L.solve_sylvester(A, B, C), L.qr_multiply(M, n.ones((2, 5))),
            L.qr_multiply(M, n.ones((3, 2)), mode="left"), L.qr_multiply(M, n.arange(5.0)),
            L.qr_multiply(A, E, conjugate=True)),
        "transformed": lambda: (
            m.grad(lambda a: n.sum(L.polar(a, method="svd")[1]))(A),
            m.jit(lambda x: L.circulant(x) @ L.hankel(x))(v)),
    }


@pytest.mark.parametrize("name", list(cases(jax)))
def test_as_jax(name):
    assert_tree_matches(cases(didax)[name](), cases(jax)[name](), scale=100.0, what=name)


def test_errors():
    L = didax.scipy.linalg
    with pytest.raises(ValueError, match="power of 2"):
        L.hadamard(6)
    with pytest.raises(ValueError, match="Incompatible shapes for Sylvester"):
        L.solve_sylvester(A, B, C.T)
    with pytest.raises(NotImplementedError, match="pivoting=True"):
        L.qr_multiply(M, np.ones((2, 5)), pivoting=True)
