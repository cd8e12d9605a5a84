"""Eager results equal jitted ones as closely as JAX's do. JAX runs the same XLA kernels
eagerly and under jit, so programs compare `f(x)` with `jit(f)(x)` tightly; didax evaluates
eagerly on the host except where XLA would round differently (transcendental functions,
reductions, matrix products, division by a constant). For each operation the sweep asserts
max|eager - jit| under didax is no larger than under JAX, on the same inputs.
"""

from __future__ import annotations

import didax
import jax
import numpy as np
import pytest


def _ops(lib):
    jnp, nn, sp = lib.numpy, lib.nn, lib.scipy.special
    return {
        "exp": jnp.exp, "log": lambda x: jnp.log(jnp.abs(x) + 0.1), "log1p":
        lambda x: jnp.log1p(jnp.abs(x)), "expm1": jnp.expm1, "tanh": jnp.tanh,
        "sin": jnp.sin, "cos": jnp.cos, "tan": lambda x: jnp.tan(x * 0.5),
        "arcsin": lambda x: jnp.arcsin(jnp.clip(x, -0.9, 0.9)), "arctan": jnp.arctan,
        "sinh": jnp.sinh, "cosh": jnp.cosh, "arcsinh": jnp.arcsinh,
        "arctanh": lambda x: jnp.arctanh(jnp.clip(x, -0.9, 0.9)), "sigmoid": nn.sigmoid,
        "erf": sp.erf, "exp2": jnp.exp2, "pow": lambda x: jnp.abs(x) ** 2.5,
        "sqrt": lambda x: jnp.sqrt(jnp.abs(x)), "softplus": nn.softplus, "gelu": nn.gelu,
        "sum": jnp.sum, "sum0": lambda x: jnp.sum(x, 0), "mean": jnp.mean,
        "mean_last": lambda x: jnp.mean(x, -1), "var": jnp.var, "std": lambda x: x.std(0),
        "prod": lambda x: jnp.prod(x * 0.1 + 1), "cumsum": lambda x: jnp.cumsum(x, -1),
        "logsumexp": sp.logsumexp, "softmax": nn.softmax, "norm": jnp.linalg.norm,
        "div_const": lambda x: x / 10, "div_scalar_arr": lambda x: x / 7.0 + 1 / 3,
        "matmul": lambda x: x @ x.T, "dot": lambda x: jnp.dot(x.reshape(-1, 4).T,
                                                            x.reshape(-1, 4)),
        "einsum": lambda x: jnp.einsum("...i,...i->...", x, x),
        "tensordot": lambda x: jnp.tensordot(x, x, axes=x.ndim),
        "matvec": lambda x: x.reshape(-1, 4) @ jnp.arange(4.0),
    }


_SHAPES = [(1000,), (33, 64)]


def _diff(lib, name, x):
    f = _ops(lib)[name]
    eager = np.asarray(f(x), np.float64)
    jitted = np.asarray(lib.jit(f)(x), np.float64)
    return float(np.max(np.abs(eager - jitted), initial=0.0)), eager


@pytest.mark.parametrize("name", sorted(_ops(didax)))
def test_eager_equals_jit_as_closely_as_jax(name):
    rng = np.random.default_rng(0)
    for shape in _SHAPES:
        x = rng.standard_normal(shape).astype(np.float32)
        if name in ("matmul",) and len(shape) != 2:
            continue
        d_didax, e_didax = _diff(didax, name, x)
        d_jax, e_jax = _diff(jax, name, x)
        assert d_didax <= d_jax, f"{name} {shape}: didax eager/jit {d_didax} > JAX's {d_jax}"
        np.testing.assert_allclose(e_didax, e_jax, rtol=2e-6, atol=1e-6)
