"""jax.scipy.sparse.linalg (cg, bicgstab) and lax.custom_linear_solve against JAX: solutions
for matrices, matvec functions, preconditioners, pytrees, maxiter; under jit and vmap;
implicit reverse-mode gradients in b and in the operator's closed-over values."""

from __future__ import annotations

import importlib

import didax
import jax
import numpy as np
import pytest
from jaxcompare import assert_same


def _run(lib):
    jnp, lax = lib.numpy, lib.lax
    spl = importlib.import_module(f"{lib.__name__}.scipy.sparse.linalg")
    A = jnp.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]])
    N = A + jnp.triu(A, 1)
    b = jnp.array([1.0, 2.0, 3.0])
    solve = lambda mv, b: jnp.linalg.solve(A, b)  # noqa: E731
    tsolve = lambda vm, b: jnp.linalg.solve(A.T, b)  # noqa: E731
    return [
        spl.cg(A, b)[0], spl.cg(lambda x: A @ x, b, tol=1e-8, maxiter=2)[0],
        spl.cg(A, b, M=jnp.diag(1 / jnp.diag(A)))[0], spl.bicgstab(N, b)[0],
        lib.jit(lambda b: spl.cg(A, b)[0])(b),
        lib.grad(lambda b: spl.cg(A, b)[0].sum())(b),
        lib.grad(lambda A: spl.cg(lambda x: A @ x, b)[0].sum())(A),
        lib.grad(lambda N: spl.bicgstab(lambda x: N @ x, b)[0][0])(N),
        spl.cg(lambda t: {"a": 2 * t["a"], "b": 3 * t["b"]},
               {"a": jnp.ones(2), "b": jnp.ones(1)})[0],
        lib.vmap(lambda b: spl.cg(A, b)[0])(jnp.eye(3)),
        lax.custom_linear_solve(lambda x: A @ x, b, solve, symmetric=True),
        lib.grad(lambda b: lax.custom_linear_solve(lambda x: A @ x, b, solve,
                                                   tsolve).sum())(b),
    ]


def test_solvers_match_jax():
    assert_same(_run(didax), _run(jax), scale=100.0)


def test_transpose_solve_required():
    A = didax.numpy.eye(2)
    f = lambda b: didax.lax.custom_linear_solve(lambda x: A @ x, b, lambda mv, b: b)  # noqa
    with pytest.raises(TypeError, match="transpose_solve required"):
        didax.grad(lambda b: f(b).sum())(didax.numpy.ones(2))
    with pytest.raises(ValueError, match="matching shapes"):
        didax.scipy.sparse.linalg.cg(A, np.ones(2, np.float32), x0=np.ones(3, np.float32))


def _roots(lib):
    jnp, lax = lib.numpy, lib.lax

    def newton(f, x0):
        return lax.fori_loop(0, 30, lambda i, x: x - f(x) / lib.grad(f)(x), x0)

    def sqrt_root(c):
        return lax.custom_root(lambda x: x ** 2 - c, 1.0, newton, lambda g, y: y / g(1.0))

    A = jnp.array([[3.0, 1.0], [1.0, 2.0]])

    def vec_root(b):
        solve = lambda f, x0: lax.fori_loop(0, 200, lambda i, x: x - 0.2 * f(x), x0)  # noqa
        tsolve = lambda g, y: jnp.linalg.solve(lib.jacobian(g)(y), y)  # noqa: E731
        return lax.custom_root(lambda x: A @ x - b, jnp.zeros(2), solve, tsolve)

    b = jnp.array([1.0, 2.0])
    return [sqrt_root(2.0), lib.grad(sqrt_root)(2.0), lib.jit(lib.grad(sqrt_root))(9.0),
            lib.vmap(sqrt_root)(jnp.array([4.0, 16.0])), lib.jvp(sqrt_root, (4.0,), (1.0,)),
            lib.grad(lambda c: sqrt_root(c) * c)(3.0), vec_root(b), lib.jacrev(vec_root)(b)]


def test_custom_root_implicit_derivatives_match_jax():
    assert_same(_roots(didax), _roots(jax), scale=100.0)
