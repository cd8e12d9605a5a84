"""Compositions on one card and call counts: jit(grad(f)), jit(value_and_grad(f)),
grad(jit(f)), vmap(grad(f)) and a jitted training step calling value_and_grad give one card
of the inner differentiation at the values that reached it (checked against JAX), titled
with the composition, with the jit's compiled stages; repeated calls with the same argument
types give one card whose call count grows; recording never repeats the user's prints.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import didax
import didax.numpy as dnp
import jax
import jax.numpy as jnp
import numpy as np
from didax import viz
from flow_oracle import Reference, backward_steps, check_backward

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "shared_schemas" / "src"))
from shared_schemas.trace import TraceCard  # noqa: E402

F32 = np.float32
X = np.array([0.5, -1.0, 2.0], F32)


def capture(fn):
    updates = []
    with viz.capture(on_card_update=lambda *a: updates.append(a)) as cards:
        fn()
    for card in cards:
        TraceCard.model_validate(card)
        json.dumps(card, allow_nan=False)
    return cards, updates


def loss_of(n):
    return lambda x: n.sum(n.sin(x) * x**2)


def check_inner(card, fn_jax, args):
    ref = Reference(fn_jax, list(args), card)
    check_backward(card, ref, [1.0], jax.grad(fn_jax, argnums=tuple(range(len(args))))(*args))
    assert backward_steps(card), "the backward phase is on the card"


def stage_names(card):
    return [s["name"] for s in card["stages"]]


def test_jit_of_grad_and_of_value_and_grad():
    for kind in ("grad", "value_and_grad"):
        transform = getattr(didax, kind)
        (card,), _ = capture(lambda t=transform: didax.jit(t(loss_of(dnp)))(X))
        assert card["title"] == f"jit({kind}(<lambda>))"
        assert card["kind"] == kind and card["transforms"] == ["jit", kind]
        assert stage_names(card)[-3:] == ["stablehlo", "hlo", "cost_analysis"]
        assert "transpose" in stage_names(card)
        check_inner(card, loss_of(jnp), [X])


def test_grad_of_jit():
    def loss(n, jx):
        @jx.jit
        def f(x):
            return n.sum(n.tanh(x) * x)
        return f

    (card,), _ = capture(lambda: didax.grad(loss(dnp, didax))(X))
    assert card["title"] == "grad(jit(f))" and card["transforms"] == ["grad", "jit"]
    assert "stablehlo" in stage_names(card) and "transpose" in stage_names(card)
    check_inner(card, loss(jnp, jax), [X])


def test_vmap_of_grad_follows_example_zero():
    xs = np.stack([X, X * 2, -X])
    (card,), _ = capture(lambda: didax.vmap(didax.grad(loss_of(dnp)))(xs))
    assert card["title"] == "vmap(grad(<lambda>))" and card["transforms"] == ["vmap", "grad"]
    assert "example 0 of the batch of 3" in card["notices"][0]["message"]
    assert stage_names(card)[-1] == "vmap"
    check_inner(card, loss_of(jnp), [xs[0]])


def mlp_program(jx, n):
    """The gallery's training step (backend/app/examples/12-mlp-training-step.py)."""
    def init(sizes):
        params = []
        for i, (m, k) in enumerate(zip(sizes[:-1], sizes[1:])):
            w = n.sin(n.arange(m * k, dtype=n.float32).reshape(m, k) + i) * 0.3
            params.append((w, n.zeros(k)))
        return params

    def mlp(params, x):
        for w, b in params[:-1]:
            x = n.tanh(x @ w + b)
        w, b = params[-1]
        return x @ w + b

    def loss(params, x, y):
        return n.mean((mlp(params, x) - y) ** 2)

    @jx.jit
    def step(params, x, y):
        print("tracing step")
        value, grads = jx.value_and_grad(loss)(params, x, y)
        new = jx.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)
        return new, value

    x = n.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    y = n.array([[0.0], [1.0], [1.0], [0.0]])
    return init([2, 8, 1]), x, y, step, loss


def test_jitted_training_step_is_one_counted_card(capsys):
    params, x, y, step, _ = mlp_program(didax, dnp)

    def run():
        p = params
        for _ in range(5):
            p, _ = step(p, x, y)

    (card,), updates = capture(run)
    assert capsys.readouterr().out.count("tracing step") == 1  # the user's trace only
    assert card["title"] == "jit(step) ▸ value_and_grad(loss)"
    assert card["kind"] == "value_and_grad" and card["transforms"] == ["jit", "value_and_grad"]
    assert card["call_count"] == 5 and updates == [(card["card_id"], k) for k in (2, 3, 4, 5)]
    assert stage_names(card)[-3:] == ["stablehlo", "hlo", "cost_analysis"]
    j_params, jx_, jy, _, j_loss = mlp_program(jax, jnp)
    flat, tree = jax.tree.flatten(j_params)
    fn = lambda *leaves: j_loss(jax.tree.unflatten(tree, list(leaves)), jx_, jy)  # noqa: E731
    check_inner(card, fn, flat)


def test_call_signatures():
    f = didax.jit(lambda x, k: x * k, static_argnums=1)
    g = loss_of(dnp)

    def run():
        f(X, 2)
        f(X + 1, 2)         # same types: counted
        f(X, 3)             # another static value: a card
        f(X[:2], 2)         # another shape: a card
        f(X.astype(np.float16), 2)
        didax.grad(g)(F32(1.0))
        didax.grad(g)(1.0)  # weakly typed: another card
        didax.grad(g)(2.0)
        didax.grad(lambda a, b: g(a) * b, argnums=1)(F32(1.0), F32(2.0))
        didax.grad(lambda a, b: g(a) * b, argnums=0)(F32(1.0), F32(2.0))
        for _ in range(2):
            didax.jit(didax.grad(g))(X)  # grad(g) rebuilt each time: the same function
        for w in (X, X, X + 1):
            didax.grad(lambda v: g(v * w))(X)  # noqa: B023 - the same array twice, then another

    cards, updates = capture(run)
    assert [c["call_count"] for c in cards] == [2, 1, 1, 1, 1, 2, 1, 1, 2, 2, 1]
    assert [u[1] for u in updates] == [2, 2, 2, 2]


def test_recording_never_prints_again(capsys):
    def loss(x):
        print("in loss")
        return dnp.sum(dnp.cos(x))

    def run():
        didax.jit(didax.grad(loss))(X)
        didax.jit(loss)(X)
        didax.grad(loss)(X)
        didax.vmap(didax.grad(loss))(np.stack([X, X]))

    cards, _ = capture(run)
    assert len(cards) == 4
    assert capsys.readouterr().out.count("in loss") == 4  # once per call of the user's own


def test_a_function_that_only_differentiates_sometimes():
    def step(x, flag):
        if flag:
            return didax.grad(lambda v: dnp.sum(dnp.exp(v)))(x)
        return dnp.exp(x)

    jitted = didax.jit(step, static_argnums=1)
    cards, _ = capture(lambda: (jitted(X, True), jitted(X, False)))
    assert [c["title"] for c in cards] == ["jit(step) ▸ grad(<lambda>)", "jit(step)"]
    assert [c["kind"] for c in cards] == ["grad", "jit"]
    assert cards[1]["transforms"] == ["jit"]


def test_composition_chain_through_a_user_function_and_vmap():
    def per_example(w, x):
        return didax.grad(lambda w: dnp.sum(dnp.tanh(w * x)))(w)

    def batch(w, xs):
        return didax.vmap(per_example, in_axes=(None, 0))(w, xs).sum(0)

    xs = np.stack([X, X + 1])
    (card,), _ = capture(lambda: didax.jit(batch)(X, xs))
    assert card["title"] == "jit(batch) ▸ vmap(per_example) ▸ grad(<lambda>)"
    assert card["transforms"] == ["jit", "vmap", "grad"]
    check_inner(card, lambda w: jnp.sum(jnp.tanh(w * xs[0])), [X])


def test_donated_arguments_are_recorded_from_copies():
    def build(jx, n):
        return jx.jit(lambda p, x: p - 0.1 * jx.grad(lambda q: n.sum(n.tanh(q * x)))(p),
                      donate_argnums=0)

    step = build(didax, dnp)
    p = dnp.ones(3)
    (card,), _ = capture(lambda: step(p, X))
    assert p.is_deleted()  # the user's call donated it, as JAX's does
    check_inner(card, lambda q: jnp.sum(jnp.tanh(q * X)), [np.ones(3, F32)])
