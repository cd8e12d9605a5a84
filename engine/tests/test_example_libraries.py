"""`jax.example_libraries` (stax, optimizers) against real JAX: the same PRNG key gives the
same parameters and output shapes, networks apply to the same values (eagerly and under
jit), and training steps with every optimizer and schedule follow JAX's numbers; plus the
OptimizerState pytree, (un)packing, gradient utilities and the libraries' errors.
"""

from __future__ import annotations

import didax
import didax.example_libraries.optimizers as d_opt
import didax.example_libraries.stax as d_stax
import jax
import jax.example_libraries.optimizers as j_opt
import jax.example_libraries.stax as j_stax
import numpy as np
import pytest
from oracle import assert_same_error, assert_tree_matches, raised

LIBS = {didax: (d_stax, d_opt), jax: (j_stax, j_opt)}


def _cnn(stax):
    return stax.serial(
        stax.Conv(4, (3, 3), padding="SAME"), stax.BatchNorm(), stax.Relu,
        stax.MaxPool((2, 2), strides=(2, 2)),
        stax.GeneralConv(("NCHW", "OIHW", "NCHW"), 3, (2, 1), strides=(1, 2)),
        stax.Tanh, stax.AvgPool((2, 2), padding="SAME", spec="NCHW"), stax.SumPool((1, 2)),
        stax.Flatten, stax.FanOut(3),
        stax.parallel(stax.Dense(6), stax.serial(stax.Dense(6), stax.Softplus),
                      stax.serial(stax.Dense(6, b_init=stax.randn(0.5)), stax.Elu)),
        stax.FanInSum, stax.Gelu, stax.Dropout(0.8), stax.FanOut(2),
        stax.parallel(stax.Identity, stax.Sigmoid), stax.FanInConcat(),
        stax.LeakyRelu, stax.Selu, stax.Dense(5), stax.LogSoftmax)


def _upsampler(stax):
    return stax.serial(
        stax.ConvTranspose(3, (3, 3), strides=(2, 2), padding="SAME"), stax.Exp,
        stax.shape_dependent(lambda shape: stax.Dense(shape[-1])), stax.Softmax)


def _conv1d(stax):
    return stax.serial(stax.Conv1DTranspose(2, (3,), strides=(2,)),
                       stax.BatchNorm(axis=(0, 1), center=False), stax.Relu)


X = np.random.RandomState(0).rand(4, 12, 10, 3).astype(np.float32)


@pytest.mark.parametrize("net,shape", [(_cnn, (-1, 12, 10, 3)), (_upsampler, (2, 4, 5, 3)),
                                       (_conv1d, (3, 7, 2))])
def test_init_gives_jax_parameters_and_shapes(net, shape):
    got = net(d_stax)[0](didax.random.key(0), shape)
    want = net(j_stax)[0](jax.random.key(0), shape)
    assert repr(got[0]) == repr(want[0])  # output shapes, integer types included
    assert_tree_matches(got[1], want[1])


def _loss(top, apply):
    def loss(params, x):
        return -apply(params, x, rng=top.random.key(2)).mean()
    return loss


def _apply_all(top):
    init, apply = _cnn(LIBS[top][0])
    _, params = init(top.random.key(0), X.shape)
    return (apply(params, X, rng=top.random.key(1)),
            top.jit(lambda p, x: apply(p, x, rng=top.random.key(1)))(params, X),
            top.grad(_loss(top, apply))(params, X))


def test_apply_matches_jax_eager_and_jit():
    assert_tree_matches(_apply_all(didax), _apply_all(jax), scale=10)


def _optimizers(opt):
    return {
        "sgd": opt.sgd(0.1),
        "momentum": opt.momentum(0.1, 0.9),
        "nesterov": opt.nesterov(opt.exponential_decay(0.1, 2, 0.5), 0.9),
        "adagrad": opt.adagrad(0.1),
        "rmsprop": opt.rmsprop(0.01),
        "rmsprop_momentum": opt.rmsprop_momentum(0.01),
        "adam": opt.adam(opt.inverse_time_decay(1e-2, 2, 0.5, staircase=True)),
        "adamax": opt.adamax(opt.polynomial_decay(0.01, 3, 0.001)),
        "adam_piecewise": opt.adam(opt.piecewise_constant([1, 2], [0.1, 0.05, 0.01])),
    }


def _small(stax):
    return stax.serial(stax.Conv(3, (3, 3), strides=(2, 2)), stax.Relu,
                       stax.MaxPool((2, 2)), stax.Flatten, stax.Dense(4), stax.LogSoftmax)


def _train(top, name, steps=3):
    stax, opt = LIBS[top]
    init, apply = _small(stax)
    _, params = init(top.random.key(0), X.shape)
    opt_init, opt_update, get_params = _optimizers(opt)[name]
    loss = _loss(top, apply)

    @top.jit
    def step(i, state):
        value, grads = top.value_and_grad(loss)(get_params(state), X)
        return value, opt_update(i, opt.clip_grads(grads, 1.0), state)
    state, values = opt_init(params), []
    for i in range(steps):
        value, state = step(i, state)
        values.append(value)
    return values, get_params(state), opt.l2_norm(get_params(state))


@pytest.mark.parametrize("name", sorted(_optimizers(d_opt)))
def test_training_steps_match_jax(name):
    assert_tree_matches(_train(didax, name), _train(jax, name), scale=20)


def _sm3_step(top):
    stax, opt = LIBS[top]
    init, apply = stax.serial(stax.Dense(3), stax.Relu, stax.Dense(2))
    _, params = init(top.random.key(3), (5, 4))
    opt_init, opt_update, get_params = opt.sm3(0.1)
    state = opt_init(params + [np.float32(2.0)])
    grads = top.grad(lambda p: (apply(p[:-1], np.ones((5, 4), np.float32)) ** 2).sum()
                     * p[-1])(get_params(state))
    return get_params(opt_update(0, grads, state))


def test_sm3_eagerly():
    assert_tree_matches(_sm3_step(didax), _sm3_step(jax))


def test_optimizer_state_is_a_pytree():
    for top, (_, opt) in LIBS.items():
        params = {"w": np.ones((2, 3), np.float32), "b": [np.zeros(3, np.float32)]}
        state = opt.adam(0.1)[0](params)
        leaves, tree = top.tree_util.tree_flatten(state)
        assert len(leaves) == 6 and isinstance(state, opt.OptimizerState)
        again = top.tree_util.tree_unflatten(tree, leaves)
        assert again.tree_def == state.tree_def
        packed = opt.pack_optimizer_state(opt.unpack_optimizer_state(state))
        assert top.tree_util.tree_structure(packed) == tree
        marked = opt.unpack_optimizer_state(state)
        assert isinstance(marked["w"], opt.JoinPoint) and len(marked["w"].subtree) == 3


def test_schedules_and_utilities():
    def values(top, opt):
        scheds = [opt.constant(0.5), opt.exponential_decay(1.0, 3, 0.5),
                  opt.inverse_time_decay(1.0, 2, 0.5), opt.inverse_time_decay(1.0, 2, 0.5, True),
                  opt.polynomial_decay(1.0, 4, 0.1, power=2.0),
                  opt.piecewise_constant([2, 4], [1.0, 0.5, 0.1]), opt.make_schedule(0.3)]
        tree = [np.arange(3.0, dtype=np.float32), {"a": np.float32(-4.0)}]
        return ([[float(s(i)) for i in range(6)] for s in scheds],
                (opt.l2_norm(tree), opt.clip_grads(tree, 1.0), opt.clip_grads(tree, 100.0)))
    (got_s, got), (want_s, want) = values(didax, d_opt), values(jax, j_opt)
    np.testing.assert_allclose(got_s, want_s, rtol=1e-6)
    assert_tree_matches(got, want)


@pytest.mark.parametrize("call", [
    lambda top, stax, opt: stax.Dropout(0.5)[1]((), np.ones(3, np.float32)),
    lambda top, stax, opt: opt.sgd(0.1)[1](0, {"a": 1.0}, opt.sgd(0.1)[0]({"b": 1.0})),
    lambda top, stax, opt: opt.make_schedule(np.ones(3)),
    lambda top, stax, opt: opt.piecewise_constant([1, 2], [1.0, 2.0]),
])
def test_errors_match_jax(call):
    e_d = raised(call, didax, d_stax, d_opt)
    e_j = raised(call, jax, j_stax, j_opt)
    assert e_j is not None and e_d is not None
    assert_same_error(e_d, e_j)
