"""didax.numpy.linalg against jax.numpy.linalg (JAX 0.10.2): norms of every order, det/
slogdet/solve/inv/cholesky/matrix_power/multi_dot/tensorinv/tensorsolve values, dtypes,
gradients and vmap; the decompositions didax does not provide raise NotImplementedError.
"""

import didax.numpy as dnp
import jax.numpy as jnp
import numpy as np
import pytest
from numpy_oracle import L, check, check_grad, check_vmap, rand

A = rand((4, 4), seed=1)
B = rand((2, 5, 5), seed=2)
VEC = rand((4,), seed=3)
SPD = (A @ A.T + 4 * np.eye(4)).astype(np.float32)
C = (rand((3, 3), seed=4) + 1j * rand((3, 3), seed=5)).astype(np.complex64)


def _la(m):
    return m.linalg


CASES = [
    ("norm", (A,), {}), ("norm", (A, 1), {}), ("norm", (A, -1), {}), ("norm", (A, np.inf), {}),
    ("norm", (A, -np.inf), {}), ("norm", (A, "fro"), {}), ("norm", (VEC, 3), {}),
    ("norm", (VEC, 0), {}), ("norm", (VEC, 1), {}), ("norm", (VEC, -np.inf), {}),
    ("norm", (B,), {"axis": (1, 2), "keepdims": True}), ("norm", (A, 1), {"axis": 0}),
    ("norm", (A, None, (1, 0)), {}), ("norm", (C,), {}), ("norm", (A, "bad"), {}),
    ("norm", (VEC, "inf"), {}), ("norm", (B, None, (0, 1, 2)), {}), ("norm", (np.arange(4),), {}),
    ("vector_norm", (A,), {"axis": 1}), ("matrix_norm", (B,), {"ord": 1}),
    ("det", (A,), {}), ("det", (B,), {}), ("det", (A[:3, :3],), {}), ("det", (A[:2, :2],), {}),
    ("det", (np.zeros((4, 4), np.float32),), {}), ("det", (C,), {}), ("det", (A[:3],), {}),
    ("det", (np.arange(16).reshape(4, 4) % 5,), {}),
    ("slogdet", (A,), {}), ("slogdet", (B,), {}), ("slogdet", (C,), {}),
    ("solve", (A, VEC), {}), ("solve", (B, B), {}), ("solve", (A, A[:, :2]), {}),
    ("solve", (B, rand((5,), seed=6)), {}), ("solve", (C, C[0]), {}), ("solve", (VEC, VEC), {}),
    ("inv", (A,), {}), ("inv", (B,), {}), ("inv", (C,), {}), ("inv", (A[:3],), {}),
    ("cholesky", (SPD,), {}), ("cholesky", (SPD,), {"upper": True}), ("cholesky", (-SPD,), {}),
    ("matrix_power", (A, 3), {}), ("matrix_power", (A, -2), {}), ("matrix_power", (B, 0), {}),
    ("matrix_power", (A, 1.5), {}), ("multi_dot", (L([A, A, VEC]),), {}),
    ("multi_dot", (L([VEC, A, A]),), {}), ("tensorinv", (rand((4, 2, 2), seed=7), 1), {}),
    ("tensorsolve", (rand((2, 2, 4), seed=8), rand((2, 2), seed=9)), {}),
    ("trace", (B,), {"offset": 1}), ("diagonal", (B,), {}), ("outer", (VEC, VEC), {}),
    ("matrix_transpose", (B,), {}), ("vecdot", (A, A), {}), ("cross", (A[:, :3], A[:, 1:]), {}),
    ("tensordot", (A, A), {"axes": 1}), ("matmul", (A, A), {}),
]


@pytest.mark.parametrize("name,args,kwargs", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_linalg(name, args, kwargs):
    check(name, *args, rtol=2e-4, fn=lambda m: getattr(_la(m), name), **kwargs)


def test_linalg_grads_and_vmap():
    for fn in (lambda m: m.linalg.det, lambda m: lambda a: m.linalg.slogdet(a)[1],
               lambda m: m.linalg.inv, lambda m: lambda a: m.linalg.solve(a, m.ones(4)),
               lambda m: m.linalg.norm, lambda m: lambda a: m.linalg.norm(a, 1),
               lambda m: lambda a: m.linalg.matrix_power(a, 3)):
        check_grad(fn, A, rtol=1e-3)
        check_vmap(fn, rand((3, 4, 4), seed=10), rtol=1e-4)
    check_grad(lambda m: m.linalg.cholesky, SPD, rtol=1e-3)
    check_vmap(lambda m: m.linalg.cholesky, np.stack([SPD, 2 * SPD]))


def test_matrix_two_norms_and_nuclear_norm_as_jax():
    for o in (2, -2, "nuc"):
        d, j = dnp.linalg.norm(dnp.asarray(A), o), jnp.linalg.norm(jnp.asarray(A), o)
        np.testing.assert_allclose(np.asarray(d), np.asarray(j), rtol=1e-5)
