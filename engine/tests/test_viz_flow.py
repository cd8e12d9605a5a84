"""Gradient flow on trace cards, with real JAX as the oracle (flow_oracle.py): each backward
step is one transposed equation whose contributions equal `jax.vjp` of that equation alone,
partial sums run to JAX's cotangents and the inputs' sums equal `jax.grad`; broadcasting
and indexing say where contributions go; heatmaps summarise arrays.
"""

from __future__ import annotations

import json
import sys
from functools import partial
from pathlib import Path

import didax
import didax.lax as dlax
import didax.numpy as dnp
import jax
import jax.lax as jlax
import jax.numpy as jnp
import numpy as np
import pytest
from didax import viz
from flow_oracle import Reference, backward_steps, check_backward

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "shared_schemas" / "src"))
from shared_schemas.trace import TraceCard  # noqa: E402

F32 = np.float32
X = np.array([0.5, -1.0, 2.0, 0.25], F32)
M = np.arange(6, dtype=F32).reshape(2, 3) / 4


def capture(fn):
    with viz.capture() as cards:
        fn()
    for card in cards:
        TraceCard.model_validate(card)
        json.dumps(card, allow_nan=False)
    return cards


def grad_card(build, *args, argnums=0, kind="grad"):
    """The didax card of grad(f)(*args), its JAX reference and JAX's gradient."""
    f_d, f_j = build(dnp, dlax, didax), build(jnp, jlax, jax)
    transform = getattr(didax, kind)
    (card,) = capture(lambda: transform(f_d, argnums=argnums)(*args))
    assert card["error"] is None, card["error"]
    nums = (argnums,) if isinstance(argnums, int) else argnums
    dyn = [args[i] for i in nums]
    flat, tree = jax.tree.flatten(dyn)

    def flat_fn(*xs):
        full = list(args)
        for i, a in zip(nums, jax.tree.unflatten(tree, list(xs))):
            full[i] = a
        return f_j(*full)

    ref = Reference(flat_fn, flat, card)
    want = jax.tree.leaves(jax.grad(f_j, argnums=nums)(*args))
    return card, ref, want


def check_grad(build, *args, argnums=0):
    card, ref, want = grad_card(build, *args, argnums=argnums)
    received = check_backward(card, ref, [1.0], want)
    return card, received


# ----------------------------------------------------------------------------------------
# programs
# ----------------------------------------------------------------------------------------


def fan_out(n, lax, jx):
    return lambda x: n.sin(x) * x**2


def test_fan_out_sends_one_contribution_per_use():
    """The issue's example: x's first contribution arrives before the second, the second
    completes the sum."""
    card, received = check_grad(fan_out, F32(1.5))
    x = card["jaxpr"]["invars"][0]["id"]
    first, second = received[x]
    assert (first["k"], first["of"], second["k"], second["of"]) == (1, 2, 2, 2)
    assert first["partial"]["preview"] != second["partial"]["preview"]
    steps = backward_steps(card)
    assert steps[0]["eqn_id"] is None and steps[0]["label"] == "output cotangent = 1"
    assert steps[0]["contributions"][0]["value"]["preview"] == [1.0]
    assert [s["eqn_id"] for s in steps[1:]] == [e["id"] for e in card["jaxpr"]["eqns"]][::-1]


def test_fan_out_of_a_vector_and_a_square():
    check_grad(lambda n, lax, jx: lambda x: n.sum(x * x + n.exp(x) * x), X)


def test_explicit_and_implicit_broadcasting_record_the_reduction():
    def f(n, lax, jx):
        return lambda m, v, s: n.sum(n.tanh(m + v[None, :] * s) * m[:, :1])

    card, received = check_grad(f, M, X[:3], F32(0.7), argnums=(0, 1, 2))
    reduced = [c for cs in received.values() for c in cs if c.get("reduced_from")]
    axes = {(tuple(c["reduced_from"]), tuple(c["reduced_axes"])) for c in reduced}
    assert ((2, 3), (0,)) in axes  # v[None, :] broadcast along rows
    assert ((2, 3), (1,)) in axes  # m[:, :1] broadcast along columns
    assert any(len(a) == len(f) for f, a in axes)  # the scalar s, summed over every axis


def test_indexing_records_where_contributions_land():
    idx = np.array([0, 2, 0], np.int32)

    def f(n, lax, jx):
        def g(x, i):
            return (x[1:3].sum() * x[idx].sum() + x[3] ** 2
                    + lax.dynamic_slice(x, (i,), (2,)).sum())
        return g

    card, ref, want = grad_card(lambda n, lax, jx: partial(f(n, lax, jx), i=1), X)
    received = check_backward(card, ref, [1.0], want)
    x = card["jaxpr"]["invars"][0]["id"]
    landings = [c["landing"] for c in received[x] if c.get("landing")]
    assert "[1:3] of f32[4]" in landings
    assert "elements 0, 2 of f32[4]" in landings
    assert "[3] of f32[4]" in landings
    gathered = next(c for c in received[x] if c.get("landing") == "elements 0, 2 of f32[4]")
    # the heatmap of a contribution shows it: 2 of 4 cells lit, x[0] twice as much
    heat = gathered["value"]["heatmap"]
    assert heat["rows"] == 1 and heat["cols"] == 4 and heat["cells"][2:4] == "00"


def test_scatter_add_records_where_updates_came_from():
    idx = np.array([1, 3, 1], np.int32)

    def f(n, lax, jx):
        return lambda x, u: n.sum(n.sin(x.at[idx].add(u * 2.0)) * x)

    card, received = check_grad(f, X, X[:3], argnums=(0, 1))
    scatter = next(e for e in card["jaxpr"]["eqns"] if e["primitive"] == "scatter-add")
    updates = scatter["invars"][2]["id"]
    assert [c.get("landing") for c in received[updates]] == ["from elements 1, 3 of f32[4]"]


def test_cond_walks_the_taken_branch():
    def f(n, lax, jx):
        return lambda x: lax.cond(n.sum(x) > 0, lambda v: n.sum(v * v * 3.0),
                                  lambda v: n.sum(n.sin(v)), x * 2.0)

    for x in (X, -X):
        card, _ = check_grad(f, x)
        labels = [s["label"] for s in backward_steps(card)]
        taken = 1 if x.sum() > 0 else 0
        assert f"cond (branch {taken} taken): cotangents enter the body" in labels


def test_shared_jit_body_called_twice_has_its_own_flow_per_call():
    def f(n, lax, jx):
        inner = jx.jit(lambda a: n.sin(a) * 2.0)
        return lambda x: n.sum(inner(x) * inner(x * 3.0))

    card, received = check_grad(f, X)
    jits = [e for e in card["jaxpr"]["eqns"] if e["primitive"] == "jit"]
    first, second = [j["subjaxprs"][0]["jaxpr"] for j in jits]
    assert {e["id"] for e in first["eqns"]}.isdisjoint(e["id"] for e in second["eqns"])
    assert first["invars"][0]["id"] != second["invars"][0]["id"]
    stepped = {s["eqn_id"] for s in backward_steps(card)}
    assert {e["id"] for e in first["eqns"] + second["eqns"]} <= stepped


def test_custom_vjp_uses_the_users_backward_rule():
    def build(n, lax, jx):
        @partial(jx.custom_vjp, nondiff_argnums=(0,))
        def clip_gradient(hi, x):
            return x

        clip_gradient.defvjp(lambda hi, x: (x, None),
                             lambda hi, _, g: (n.clip(g, -hi, hi),))
        return lambda x: n.sum(clip_gradient(0.5, n.sin(x) * 3.0))

    card, received = check_grad(build, X)
    step = next(s for s in backward_steps(card) if s["label"] == "transpose custom_vjp_call")
    assert step["contributions"][0]["value"]["max"] == pytest.approx(0.5)


def test_custom_jvp_uses_its_rule():
    def build(n, lax, jx):
        @jx.custom_jvp
        def log1pexp(x):
            return n.log(1.0 + n.exp(x))

        log1pexp.defjvp(lambda p, t: (log1pexp(p[0]),
                                      t[0] * (1.0 - 1.0 / (1.0 + n.exp(p[0])))))
        return lambda x: n.sum(log1pexp(x * 40.0))

    card, _ = check_grad(build, X)
    assert all(c["nan_count"] == 0 for c in card["cotangents"].values())


def test_pytree_parameters():
    params = {"w": M, "b": X[:3], "scale": [F32(2.0)]}

    def build(n, lax, jx):
        def loss(p, x):
            h = x @ p["w"] + p["b"]
            return n.sum(n.tanh(h) ** 2) * p["scale"][0]
        return loss

    card, _ = check_grad(build, params, np.array([1.0, -2.0], F32))
    grads = [card["cotangents"][v["id"]] for v in card["jaxpr"]["invars"]]
    assert all(g["norm"] > 0 for g in grads)


def test_value_and_grad_with_aux_and_several_inputs():
    def build(n, lax, jx):
        return lambda a, b: (n.sum(n.sin(a) * b), {"aux": a * 2})

    f_d, f_j = build(dnp, dlax, didax), build(jnp, jlax, jax)
    (card,) = capture(lambda: didax.value_and_grad(f_d, argnums=(0, 1), has_aux=True)(X, X))
    ref = Reference(lambda a, b: f_j(a, b)[0], [X, X], card)
    want = jax.grad(lambda a, b: f_j(a, b)[0], argnums=(0, 1))(X, X)
    check_backward(card, ref, [1.0], want)


def test_vjp_seeds_every_output_with_ones():
    def build(n, lax, jx):
        return lambda a: (n.sin(a) * a, n.cos(a[:2]))

    f_d, f_j = build(dnp, dlax, didax), build(jnp, jlax, jax)
    (card,) = capture(lambda: didax.vjp(f_d, X))
    ref = Reference(f_j, [X], card)
    seeds = [np.ones(4, F32), np.ones(2, F32)]
    _, pull = jax.vjp(f_j, X)
    check_backward(card, ref, seeds, pull(tuple(seeds)))
    assert [n["kind"] for n in card["notices"]] == ["selection"]
    assert backward_steps(card)[0]["label"] == "output cotangents = ones"


def test_jacrev_shows_row_zero():
    def build(n, lax, jx):
        return lambda a: n.sin(a) * a[::-1]

    f_d, f_j = build(dnp, dlax, didax), build(jnp, jlax, jax)
    (card,) = capture(lambda: didax.jacrev(f_d)(X))
    ref = Reference(f_j, [X], card)
    seed = np.eye(4, dtype=F32)[0]
    check_backward(card, ref, [seed], [jax.jacrev(f_j)(X)[0]])
    assert "row 0" in card["notices"][0]["message"]


def test_matmul_layers():
    w1, w2 = np.sin(np.arange(12, dtype=F32)).reshape(3, 4), np.cos(np.arange(4, dtype=F32))

    def build(n, lax, jx):
        def loss(w1, w2, x):
            h = n.tanh(x @ w1)
            return n.mean((h @ w2 - 1.0) ** 2)
        return loss

    check_grad(build, w1, w2, M[:, :3] if M.shape[1] == 3 else M, argnums=(0, 1))


# ----------------------------------------------------------------------------------------
# heatmaps and summaries
# ----------------------------------------------------------------------------------------


def test_heatmaps_block_average_and_slice():
    from didax._src.viz.values import summarize

    s = summarize(np.arange(64 * 10, dtype=F32).reshape(64, 10))
    h = s["heatmap"]
    assert (h["rows"], h["cols"], h["block"]) == (32, 10, [2, 1])
    assert h["lo"] == pytest.approx(5.0) and h["hi"] == pytest.approx(634.0)  # 2-row means
    assert h["cells"][:2] == "00" and h["cells"][-2:] == "ff" and len(h["cells"]) == 640
    cube = summarize(np.arange(2 * 3 * 5, dtype=F32).reshape(2, 3, 5))["heatmap"]
    assert cube["slice"] == "[0, :, :]" and (cube["rows"], cube["cols"]) == (3, 5)
    bad = summarize(np.array([1.0, np.nan, np.inf, 3.0], F32))
    assert bad["heatmap"]["cells"][2:6] == "----" and bad["nan_count"] == 1
    assert summarize(F32(2.5))["heatmap"] is None and summarize(F32(2.5))["preview"] == [2.5]
    wide = summarize(np.ones(100, F32))["heatmap"]
    assert (wide["rows"], wide["cols"], wide["block"]) == (1, 25, [1, 4])


def test_values_and_cotangents_carry_heatmaps():
    card, _ = check_grad(lambda n, lax, jx: lambda m: n.sum(n.sin(m) @ m.T), M)
    for s in [*card["values"].values(), *card["cotangents"].values()]:
        assert (s["heatmap"] is None) == (s["shape"] == [])
