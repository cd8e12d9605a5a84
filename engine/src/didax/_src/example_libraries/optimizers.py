"""`jax.example_libraries.optimizers`: first-order optimizers as (init, update, get_params)
triples over pytrees of parameters, learning-rate schedules, and gradient utilities.

An optimizer is written for one array (`init(x0) -> state`, `update(i, g, state) ->
state`, `get_params(state) -> x`) and lifted to pytrees by the `optimizer` decorator: the
state of a whole parameter tree is an `OptimizerState` (a registered pytree) holding each
leaf's flattened state plus the tree structures needed to rebuild it. The update formulas
follow JAX's documented ones, so a training run gives JAX's numbers step for step.

May import tree_util, util, numpy (the implementation modules) and lax.
"""

from __future__ import annotations

import functools
from collections import namedtuple
from collections.abc import Callable
from typing import Any, NamedTuple

from didax._src import tree_util
from didax._src.numpy import array_creation as ac
from didax._src.numpy import lax_numpy as jnp_core
from didax._src.numpy import manipulation as man
from didax._src.numpy import products, ufuncs
from didax._src.numpy import reductions as red
from didax._src.numpy import ufuncs_math as um
from didax._src.util import safe_map, safe_zip, unzip2

Array = Any
Params = Any
State = Any
Updates = Params
Step = int
Schedule = Callable[[Step], float]
InitFn = Callable[[Params], Any]
UpdateFn = Callable[[Step, Updates, Any], Any]
ParamsFn = Callable[[Any], Params]

# The state of an optimized pytree: per-leaf flattened states, the parameter tree's
# structure and each leaf state's structure.
OptimizerState = namedtuple("OptimizerState", ["packed_state", "tree_def", "subtree_defs"])
tree_util.register_pytree_node(
    OptimizerState,
    lambda s: ((s.packed_state,), (s.tree_def, s.subtree_defs)),
    lambda aux, children: OptimizerState(children[0], aux[0], aux[1]))


class Optimizer(NamedTuple):
    """An optimizer's three functions."""

    init_fn: InitFn
    update_fn: UpdateFn
    params_fn: ParamsFn


def _flatten(tree):
    return tree_util.tree_flatten(tree)


def optimizer(opt_maker: Callable[..., Any]) -> Callable[..., Optimizer]:
    """Lifts an optimizer maker whose functions handle single arrays to one whose
    functions handle pytrees of arrays (with an OptimizerState as the state)."""

    @functools.wraps(opt_maker)
    def tree_opt_maker(*args, **kwargs):
        init, update, get_params = opt_maker(*args, **kwargs)

        @functools.wraps(init)
        def tree_init(x0_tree):
            leaves, tree = _flatten(x0_tree)
            states_flat, subtrees = unzip2(safe_map(_flatten, [init(x) for x in leaves]))
            return OptimizerState(states_flat, tree, subtrees)

        @functools.wraps(update)
        def tree_update(i, grad_tree, opt_state):
            states_flat, tree, subtrees = opt_state
            grads, grad_tree_def = _flatten(grad_tree)
            if grad_tree_def != tree:
                raise TypeError(
                    "optimizer update function was passed a gradient tree that did not "
                    "match the parameter tree structure with which it was initialized: "
                    f"parameter tree {tree} and grad tree {grad_tree_def}.")
            states = safe_map(tree_util.tree_unflatten, subtrees, states_flat)
            new = [update(i, g, s) for g, s in safe_zip(grads, states)]
            new_flat, new_subtrees = unzip2(safe_map(_flatten, new))
            for before, after in safe_zip(subtrees, new_subtrees):
                if after != before:
                    raise TypeError(
                        "optimizer update function produced an output structure that did "
                        f"not match its input structure: input {before} and output {after}.")
            return OptimizerState(new_flat, tree, subtrees)

        @functools.wraps(get_params)
        def tree_get_params(opt_state):
            states_flat, tree, subtrees = opt_state
            states = safe_map(tree_util.tree_unflatten, subtrees, states_flat)
            return tree_util.tree_unflatten(tree, [get_params(s) for s in states])

        return Optimizer(tree_init, tree_update, tree_get_params)
    return tree_opt_maker


# ----------------------------------------------------------------------------------------
# optimizers
# ----------------------------------------------------------------------------------------


def _first(state):
    return state[0]


@optimizer
def sgd(step_size):
    """Stochastic gradient descent: x <- x - step_size(i) * g."""
    step_size = make_schedule(step_size)
    return Optimizer(lambda x0: x0, lambda i, g, x: x - step_size(i) * g, lambda x: x)


@optimizer
def momentum(step_size: Schedule, mass: float):
    """SGD with momentum: v <- mass * v + g; x <- x - step_size(i) * v."""
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, velocity = state
        velocity = mass * velocity + g
        return x - step_size(i) * velocity, velocity
    return (lambda x0: (x0, ac.zeros_like(x0))), update, _first


@optimizer
def nesterov(step_size: Schedule, mass: float):
    """SGD with Nesterov momentum: the step looks ahead along the new velocity."""
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, velocity = state
        velocity = mass * velocity + g
        return x - step_size(i) * (mass * velocity + g), velocity
    return (lambda x0: (x0, ac.zeros_like(x0))), update, _first


@optimizer
def adagrad(step_size, momentum=0.9):
    """Adagrad (Duchi et al., 2011) with momentum on the scaled gradient."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, ac.zeros_like(x0), ac.zeros_like(x0)

    def update(i, g, state):
        x, g_sq, m = state
        g_sq += ufuncs.square(g)
        scale = jnp_core.where(g_sq > 0, 1. / um.sqrt(g_sq), 0.0)
        m = (1. - momentum) * (g * scale) + momentum * m
        return x - step_size(i) * m, g_sq, m
    return init, update, _first


@optimizer
def rmsprop(step_size, gamma=0.9, eps=1e-8):
    """RMSProp: the gradient divided by a running root mean square."""
    step_size = make_schedule(step_size)

    def update(i, g, state):
        x, avg_sq_grad = state
        avg_sq_grad = avg_sq_grad * gamma + ufuncs.square(g) * (1. - gamma)
        return x - step_size(i) * g / um.sqrt(avg_sq_grad + eps), avg_sq_grad
    return (lambda x0: (x0, ac.zeros_like(x0))), update, _first


@optimizer
def rmsprop_momentum(step_size, gamma=0.9, eps=1e-8, momentum=0.9):
    """RMSProp whose scaled steps accumulate in a momentum term."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, ac.zeros_like(x0), ac.zeros_like(x0)

    def update(i, g, state):
        x, avg_sq_grad, mom = state
        avg_sq_grad = avg_sq_grad * gamma + ufuncs.square(g) * (1. - gamma)
        mom = momentum * mom + step_size(i) * g / um.sqrt(avg_sq_grad + eps)
        return x - mom, avg_sq_grad, mom
    return init, update, _first


def _bias_correction(beta, dtype, i):
    return 1 - ac.asarray(beta, dtype) ** (i + 1)


@optimizer
def adam(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """Adam (Kingma & Ba, 2015): bias-corrected first and second moment estimates."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, ac.zeros_like(x0), ac.zeros_like(x0)

    def update(i, g, state):
        x, m, v = state
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * ufuncs.square(g) + b2 * v
        mhat = m / _bias_correction(b1, m.dtype, i)
        vhat = v / _bias_correction(b2, m.dtype, i)
        return x - step_size(i) * mhat / (um.sqrt(vhat) + eps), m, v
    return init, update, _first


@optimizer
def adamax(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """AdaMax: Adam with the infinity norm in place of the second moment."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, ac.zeros_like(x0), ac.zeros_like(x0)

    def update(i, g, state):
        x, m, u = state
        m = (1 - b1) * g + b1 * m
        u = ufuncs.maximum(b2 * u, ufuncs.abs(g))
        x = x - (step_size(i) / _bias_correction(b1, m.dtype, i)) * m / (u + eps)
        return x, m, u
    return init, update, _first


def _splice(seq, i, x):
    out = list(seq)
    out[i:i + 1] = x
    return out


@optimizer
def sm3(step_size, momentum=0.9):
    """SM3 (Anil et al., 2019): one accumulator per axis, their minimum bounds each
    entry's squared-gradient sum (memory linear in the sum of the dimensions)."""
    step_size = make_schedule(step_size)

    def init(x0):
        shape = x0.shape
        x0 = man.atleast_1d(x0)
        vs = [ac.zeros(n, dtype=x0.dtype) for n in x0.shape]
        return x0, ac.zeros_like(x0), vs, shape

    def update(i, g, state):
        x, m, vs, shape = state
        vs = [v[tuple(_splice([None] * g.ndim, k, [slice(None)]))] for k, v in enumerate(vs)]
        accum = functools.reduce(ufuncs.minimum, vs) + ufuncs.square(g)
        inv_sqrt = jnp_core.where(accum > 0, 1. / um.sqrt(accum), 0)
        m = (1. - momentum) * (g * inv_sqrt) + momentum * m
        x = x - step_size(i) * m
        vs = [accum.max(_splice(range(x.ndim), k, [])) for k in range(x.ndim)]
        return x, m, vs, shape
    return init, update, lambda state: state[0].reshape(state[3])


# ----------------------------------------------------------------------------------------
# learning-rate schedules
# ----------------------------------------------------------------------------------------


def constant(step_size) -> Schedule:
    return lambda i: step_size


def exponential_decay(step_size, decay_steps, decay_rate) -> Schedule:
    return lambda i: step_size * decay_rate ** (i / decay_steps)


def inverse_time_decay(step_size, decay_steps, decay_rate, staircase=False) -> Schedule:
    if staircase:
        return lambda i: step_size / (1 + decay_rate * um.floor(i / decay_steps))
    return lambda i: step_size / (1 + decay_rate * i / decay_steps)


def polynomial_decay(step_size, decay_steps, final_step_size, power=1.0) -> Schedule:
    def schedule(step_num):
        step_num = ufuncs.minimum(step_num, decay_steps)
        mult = (1 - step_num / decay_steps) ** power
        return mult * (step_size - final_step_size) + final_step_size
    return schedule


def piecewise_constant(boundaries: Any, values: Any) -> Schedule:
    boundaries, values = ac.array(boundaries), ac.array(values)
    if not boundaries.ndim == values.ndim == 1:
        raise ValueError("boundaries and values must be sequences")
    if not boundaries.shape[0] == values.shape[0] - 1:
        raise ValueError("boundaries length must be one shorter than values length")
    return lambda i: values[red.sum(i > boundaries)]


def make_schedule(scalar_or_schedule: float | Schedule) -> Schedule:
    if callable(scalar_or_schedule):
        return scalar_or_schedule
    if jnp_core.ndim(scalar_or_schedule) == 0:
        return constant(scalar_or_schedule)
    raise TypeError(type(scalar_or_schedule))


# ----------------------------------------------------------------------------------------
# utilities
# ----------------------------------------------------------------------------------------


def l2_norm(tree):
    """The l2 norm of a pytree of arrays (for weight decay, clipping)."""
    leaves = tree_util.tree_leaves(tree)
    return um.sqrt(sum(products.vdot(x, x) for x in leaves))


def clip_grads(grad_tree, max_norm):
    """Scales the gradient tree down to l2 norm max_norm when it is larger."""
    norm = l2_norm(grad_tree)
    return tree_util.tree_map(
        lambda g: jnp_core.where(norm < max_norm, g, g * (max_norm / norm)), grad_tree)


class JoinPoint:
    """Marks where an optimizer state's per-leaf subtree is joined to the parameter
    tree (so the two levels survive serialization)."""

    def __init__(self, subtree):
        self.subtree = subtree

    def __iter__(self):
        yield self.subtree


def unpack_optimizer_state(opt_state):
    """An OptimizerState as the parameter pytree with a JoinPoint per leaf (holding that
    leaf's state), e.g. to serialize it."""
    states_flat, tree_def, subtree_defs = opt_state
    subtrees = safe_map(tree_util.tree_unflatten, subtree_defs, states_flat)
    return tree_util.tree_unflatten(tree_def, [JoinPoint(s) for s in subtrees])


def pack_optimizer_state(marked_pytree):
    """The inverse of unpack_optimizer_state."""
    sentinels, tree_def = tree_util.tree_flatten(marked_pytree)
    assert all(isinstance(s, JoinPoint) for s in sentinels)
    states_flat, subtree_defs = unzip2(safe_map(_flatten, [s.subtree for s in sentinels]))
    return OptimizerState(states_flat, tree_def, subtree_defs)
