"""didax.nn against jax.nn (JAX 0.10.2): values, dtypes and weak types of every
activation over several inputs, their gradients (incl. JAX's conventions at the kinks:
relu'(0) = 0, relu6'(6) = 0), vmap, the jaxpr primitives of representative calls, and the
initializers (bit-identical draws for the same key).
"""

import didax
import didax.nn as dnn
import didax.numpy as dnp
import jax
import jax.nn as jnn
import jax.numpy as jnp
import numpy as np
import pytest
from numpy_oracle import W, assert_tree_equal, check, check_prims, materialize, rand

X = np.array([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 6.0, 7.0], np.float32)
INPUTS = {"f32": X, "f16": X.astype(np.float16), "2d": rand((3, 4)), "weak": W(0.5),
          "pyfloat": -1.5, "int": np.array([-2, 0, 3], np.int32)}
ACTIVATIONS = ["relu", "relu6", "sigmoid", "softplus", "soft_sign", "silu", "swish", "mish",
               "gelu", "elu", "celu", "selu", "leaky_relu", "hard_tanh", "hard_sigmoid",
               "hard_silu", "hard_swish", "log_sigmoid", "sparse_plus", "sparse_sigmoid",
               "squareplus", "log1mexp", "softmax", "log_softmax", "logsumexp",
               "standardize", "identity", "tanh", "logmeanexp"]


def _fn(name, **kw):
    return lambda m: (lambda *a: getattr(m, name)(*a, **kw))


def _nn(m):
    return dnn if m is dnp else jnn


@pytest.mark.parametrize("inp", list(INPUTS))
@pytest.mark.parametrize("name", ACTIVATIONS)
def test_activation_values(name, inp):
    check(name, INPUTS[inp], fn=lambda m: getattr(_nn(m), name))


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_activation_grads(name):
    def grad_of(mod, np_mod, lib):
        f = getattr(mod, name)
        return lib.grad(lambda v: np_mod.sum(f(v)))
    d = grad_of(dnn, dnp, didax)(X)
    j = grad_of(jnn, jnp, jax)(X)
    assert_tree_equal(d, j, name, rtol=1e-4)


@pytest.mark.parametrize("name", ["relu", "softmax", "gelu", "silu", "log_softmax", "elu"])
def test_activation_vmap_and_second_order(name):
    x = rand((3, 4), seed=3)
    d = didax.vmap(getattr(dnn, name))(x)
    j = jax.vmap(getattr(jnn, name))(x)
    assert_tree_equal(d, j, name)
    ramp = np.array([-1.0, 0.5, 2.0], np.float32)
    d2 = didax.grad(didax.grad(lambda v: dnp.sum(getattr(dnn, name)(v * ramp))))(
        np.float32(0.7))
    j2 = jax.grad(jax.grad(lambda v: jnp.sum(getattr(jnn, name)(v * ramp))))(
        np.float32(0.7))
    assert_tree_equal(d2, j2, name, rtol=1e-4)


KW_CASES = [
    ("gelu", {"approximate": False}), ("elu", {"alpha": 0.5}), ("celu", {"alpha": 2.0}),
    ("leaky_relu", {"negative_slope": 0.2}), ("squareplus", {"b": 1.0}),
    ("softmax", {"axis": 0}), ("log_softmax", {"axis": (0, 1)}),
    ("logsumexp", {"axis": 1, "keepdims": True}), ("standardize", {"axis": 0}),
    ("standardize", {"algorithm": "stable"}), ("logmeanexp", {"axis": 0}),
    ("softmax", {"where": rand((3, 4), np.bool_)}),
    ("log_softmax", {"where": rand((3, 4), np.bool_, seed=4)}),
    ("logsumexp", {"b": rand((3, 4), seed=5)}), ("logsumexp", {"return_sign": True}),
]


@pytest.mark.parametrize("name,kw", KW_CASES, ids=[f"{n}-{i}" for i, (n, _) in
                                                   enumerate(KW_CASES)])
def test_activation_kwargs(name, kw):
    check(name, rand((3, 4), seed=6), fn=lambda m: (lambda a: getattr(_nn(m), name)(
        a, **materialize(kw, m))))


def test_glu_and_one_hot():
    check("glu", rand((2, 6)), fn=lambda m: _nn(m).glu)
    check("glu", rand((4, 3)), fn=lambda m: lambda a: _nn(m).glu(a, axis=0))
    check("glu", rand((3,)), fn=lambda m: _nn(m).glu)
    for kw in ({}, {"dtype": np.int32}, {"axis": 0}):
        check("one_hot", np.array([0, 2, 1, 5, -1]), 3,
              fn=lambda m, kw=kw: lambda a, n: _nn(m).one_hot(a, n, **kw))
    check("one_hot", np.array([[0, 1], [2, 0]]), 3, fn=lambda m: lambda a, n:
          _nn(m).one_hot(a, n, axis=1))


def test_kinks_follow_jax():
    for name, at in (("relu", 0.0), ("relu6", 0.0), ("relu6", 6.0), ("hard_tanh", 1.0),
                     ("leaky_relu", 0.0), ("elu", 0.0), ("celu", 0.0)):
        d = didax.grad(getattr(dnn, name))(np.float32(at))
        j = jax.grad(getattr(jnn, name))(np.float32(at))
        assert_tree_equal(d, j, f"{name}'({at})")


def test_nn_prims():
    x = rand((3, 4))
    for name in ("relu", "softmax", "log_softmax", "gelu", "silu", "standardize", "elu"):
        check_prims(lambda m, n=name: getattr(_nn(m), n), x)
    check_prims(lambda m: lambda a: _nn(m).one_hot(a, 4), np.array([0, 3, 1]))


INITS = ["glorot_normal", "glorot_uniform", "lecun_normal", "lecun_uniform", "he_normal",
         "he_uniform", "xavier_normal", "xavier_uniform", "kaiming_normal",
         "kaiming_uniform"]


@pytest.mark.parametrize("name", INITS)
def test_initializers(name):
    for shape, kw in (((3, 4), {}), ((2, 3, 5), {"in_axis": 0, "out_axis": -1}),
                      ((4, 4), {"dtype": np.float16})):
        d = getattr(dnn.initializers, name)(**kw)(didax.random.PRNGKey(3), shape)
        j = getattr(jnn.initializers, name)(**kw)(jax.random.PRNGKey(3), shape)
        assert_tree_equal(d, j, name, rtol=1e-6)


def test_simple_initializers():
    kd, kj = didax.random.PRNGKey(1), jax.random.PRNGKey(1)
    for name, args in (("normal", (0.5,)), ("uniform", (2.0,)), ("truncated_normal", ()),
                       ("constant", (3.0,))):
        d = getattr(dnn.initializers, name)(*args)(kd, (2, 3))
        j = getattr(jnn.initializers, name)(*args)(kj, (2, 3))
        assert_tree_equal(d, j, name, rtol=1e-6)
    for name in ("zeros", "ones"):
        assert_tree_equal(getattr(dnn.initializers, name)(kd, (2,), np.int32),
                          getattr(jnn.initializers, name)(kj, (2,), np.int32), name)
    d = dnn.initializers.variance_scaling(2.0, "fan_geo_avg", "normal")(kd, (3, 5))
    j = jnn.initializers.variance_scaling(2.0, "fan_geo_avg", "normal")(kj, (3, 5))
    assert_tree_equal(d, j, "variance_scaling", rtol=1e-6)
    with pytest.raises(ValueError):
        dnn.initializers.glorot_normal()(kd, (3,))
