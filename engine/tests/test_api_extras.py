"""checkpoint/remat, custom_gradient, linear_transpose, ensure_compile_time_eval,
named_scope/named_call and the runtime queries, against real JAX."""

import functools

import didax
import didax.numpy as dnp
import jax
import jax.numpy as jnp
import numpy as np
import pytest


def both(make):
    """make(jax_module, numpy_module) evaluated with didax and with JAX."""
    return make(didax, dnp), make(jax, jnp)


def close(d, j, rtol=1e-6):
    dl, jl = didax.tree_util.tree_leaves(d), jax.tree_util.tree_leaves(j)
    assert len(dl) == len(jl)
    for a, b in zip(dl, jl):
        assert np.asarray(a).dtype == np.asarray(b).dtype
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol)


@pytest.mark.parametrize("name", ["checkpoint", "remat"])
def test_checkpoint_values_and_grads(name):
    def make(jx, np_):
        f = getattr(jx, name)(lambda x, y: np_.sin(x) * np_.cos(y) + x ** 2)
        g = jx.grad(f, argnums=(0, 1))
        return f(1.5, 0.3), g(1.5, 0.3), jx.jit(g)(1.5, 0.3), jx.vmap(f)(
            np_.arange(3.0), np_.ones(3))
    close(*both(make))


def test_checkpoint_decorator_forms_and_policies():
    def make(jx, np_):
        @functools.partial(jx.checkpoint, policy=jx.checkpoint_policies.nothing_saveable)
        def f(x):
            return np_.tanh(x) * x

        @jx.checkpoint
        def g(x):
            return np_.exp(x)
        return jx.grad(lambda x: f(x) + g(x))(0.7), jx.hessian(f)(0.2)
    close(*both(make))


def test_custom_gradient():
    def make(jx, np_):
        @jx.custom_gradient
        def f(x):
            return np_.sin(x), lambda ct: (ct * 10.0,)

        @jx.custom_gradient
        def two(x, y):
            return x * y, lambda ct: (ct * 2.0, ct * 3.0)
        return (f(1.0), jx.grad(f)(1.0), jx.jit(jx.grad(f))(1.0),
                jx.grad(two, argnums=(0, 1))(1.0, 2.0))
    close(*both(make))


def test_linear_transpose():
    def make(jx, np_):
        ft = jx.linear_transpose(lambda x: 2.0 * x + x[::-1], np_.ones(3))
        gt = jx.linear_transpose(lambda a, b: {"s": a + b, "d": a - b}, 1.0, 2.0)
        return ft(np_.arange(3.0)), gt({"s": 1.0, "d": 5.0})
    close(*both(make))


def test_linear_transpose_rejects_mismatched_cotangent():
    for jx, np_ in ((didax, dnp), (jax, jnp)):
        ft = jx.linear_transpose(lambda x: 2.0 * x, np_.ones(3))
        with pytest.raises(TypeError):
            ft(np_.ones(4))


def test_ensure_compile_time_eval_gives_concrete_values_under_jit():
    def make(jx, np_):
        @jx.jit
        def h(x):
            with jx.ensure_compile_time_eval():
                n = int(np_.sum(np_.arange(4)))
                y = np_.ones(2) * 2.0
            return x * n + y
        return h(1.0), str(jx.make_jaxpr(lambda x: h(x))(1.0)).count("iota")
    d, j = both(make)
    close(d[0], j[0])
    assert d[1] == j[1] == 0


def test_named_scope_and_named_call():
    def make(jx, np_):
        with jx.named_scope("block"):
            y = np_.sin(1.0)
        return y, jx.named_call(lambda x: x * 2, name="double")(3.0)
    close(*both(make))


def test_runtime_queries():
    assert didax.default_backend() == jax.default_backend() == "cpu"
    for name in ("process_index", "process_count", "host_id", "host_count"):
        assert getattr(didax, name)() == getattr(jax, name)()
    assert didax.process_indices() == list(jax.process_indices())
    assert didax.float0 == jax.dtypes.float0
    f = didax.jit(lambda x: x + 1)
    f(1.0)
    didax.clear_caches()
    assert f._cache_size() == 0
    assert float(f(1.0)) == 2.0
