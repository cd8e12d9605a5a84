"""jax.experimental.ode.odeint and jax.closure_convert against JAX: trajectories (pytree
states, extra arguments, closed-over values) and adjoint gradients."""

from __future__ import annotations

import importlib

import didax
import jax
import numpy as np
from jaxcompare import assert_same


def _run(lib):
    jnp = lib.numpy
    odeint = importlib.import_module(f"{lib.__name__}.experimental.ode").odeint
    t = jnp.linspace(0.0, 2.0, 5)

    def pend(y, t, b, c):
        theta, omega = y
        return jnp.hstack([omega, -b * omega - c * jnp.sin(theta)])

    y0 = jnp.array([np.pi - 0.1, 0.0])
    ys = odeint(pend, y0, t, 0.25, 5.0)
    scale = jnp.float32(1.5)
    tree = odeint(lambda s, t: {"a": -scale * s["a"], "b": s["a"].sum() * s["b"]},
                  {"a": jnp.ones(2), "b": jnp.float32(0.5)}, t, rtol=1e-6)

    def loss(params):
        return jnp.mean(odeint(pend, y0, t, *params)[:, 0] ** 2)
    g = lib.jit(lib.grad(loss))(jnp.array([0.3, 4.0]))
    closed = lib.grad(lambda s: odeint(lambda y, t: -s * y, jnp.ones(2), t).sum())(1.2)
    conv, consts = lib.closure_convert(lambda x: x * scale, 1.0)
    return ys, tree, g, closed, conv(2.0, *consts), len(consts)


def test_odeint_and_gradients():
    got, want = _run(didax), _run(jax)
    assert got[-1] == want[-1]
    assert_same(got[:-1], want[:-1], scale=10.0)
