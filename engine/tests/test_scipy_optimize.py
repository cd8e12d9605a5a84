"""jax.scipy.optimize.minimize (BFGS) against JAX: iterates, iteration and evaluation
counts, status codes, inverse Hessian; eager, under jit, with extra args, in float32 and
float64."""

from __future__ import annotations

import importlib

import didax
import jax
import pytest
from jaxcompare import assert_same, x64


def _run(lib):
    jnp = lib.numpy
    minimize = importlib.import_module(f"{lib.__name__}.scipy.optimize").minimize

    def rosen(x):
        return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2.0) ** 2.0 + (1 - x[:-1]) ** 2.0)

    def quad(x, a, b):
        return jnp.sum(a * (x - b) ** 2) + jnp.sum(jnp.cos(x))

    r1 = minimize(rosen, jnp.array([-1.2, 1.0, 0.5]), method="BFGS")
    r2 = lib.jit(lambda x0: minimize(quad, x0, args=(2.0, 0.5), method="bfgs"))(jnp.zeros(3))
    r3 = minimize(rosen, jnp.array([-1.2, 1.0]), method="BFGS", options={"maxiter": 4})
    return [tuple(r) for r in (r1, r2, r3)]


@pytest.mark.parametrize("wide", [False, True])
def test_bfgs_matches_jax(wide):
    with x64(wide):
        got, want = _run(didax), _run(jax)
    for g, w in zip(got, want):
        assert [int(v) for v in (g[2], g[6], g[7], g[8])] == \
            [int(v) for v in (w[2], w[6], w[7], w[8])]  # status, nfev, njev, nit
        assert bool(g[1]) == bool(w[1])
        assert_same(list(g[:1] + g[3:6]), list(w[:1] + w[3:6]), scale=100.0)


def test_bad_args_and_method():
    minimize = didax.scipy.optimize.minimize
    with pytest.raises(TypeError, match="must be a tuple"):
        minimize(lambda x: x.sum(), didax.numpy.zeros(2), args=1.0, method="BFGS")
    with pytest.raises(ValueError, match="Method nelder-mead not recognized"):
        minimize(lambda x: x.sum(), didax.numpy.zeros(2), method="nelder-mead")
