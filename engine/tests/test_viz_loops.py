"""Loops on trace cards, with real JAX as the oracle: scan, fori_loop and while_loop record
the carries and per-iteration outputs of their first N iterations (equal to a Python loop
under JAX), one forward step per iteration and a "first N of M" notice; the backward pass of
a differentiated scan walks the iterations in reverse, its per-iteration carry and xs
cotangents equal JAX's, and its contributions add up to JAX's gradient. fori_loop is
labelled as such while its jaxpr text stays JAX's.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import didax
import didax.lax as dlax
import didax.numpy as dnp
import jax
import jax.lax as jlax
import jax.numpy as jnp
import numpy as np
from didax import viz
from flow_oracle import Reference, backward_steps, check_backward, check_tangents

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "shared_schemas" / "src"))
from shared_schemas.trace import TraceCard  # noqa: E402

F32 = np.float32
XS = (np.arange(6, dtype=F32) - 2.0) / 4.0
W = F32(0.8)


def capture(fn, n=64):
    with viz.capture(loop_iterations=n) as cards:
        fn()
    for card in cards:
        TraceCard.model_validate(card)
        json.dumps(card, allow_nan=False)
    return cards


def step_fn(n):
    return lambda c, x: (n.tanh(c * W + x), c * x)


def rnn_loss(n, lax, jx, reverse=False):
    def loss(xs, c0):
        c, ys = lax.scan(step_fn(n), c0, xs, reverse=reverse)
        return c**2 + n.sum(ys * 3.0)
    return loss


def python_loop(xs, c0, reverse=False):
    """Carries entering each iteration and each iteration's y, as a Python loop under JAX."""
    carries, ys, c = [], [], c0
    order = range(len(xs) - 1, -1, -1) if reverse else range(len(xs))
    for i in order:
        carries.append(c)
        c, y = step_fn(jnp)(c, xs[i])
        ys.append(y)
    return carries, ys


def test_scan_forward_carries_equal_a_python_loop_and_are_truncated():
    for reverse in (False, True):
        (card,) = capture(lambda r=reverse: didax.jit(
            lambda xs: dlax.scan(step_fn(dnp), F32(0.3), xs, reverse=r))(XS), n=4)
        (loop,) = card["loops"]
        assert (loop["kind"], loop["length"], loop["recorded"]) == ("scan", 6, 4)
        carries, ys = python_loop(XS, F32(0.3), reverse)
        for it, c, y in zip(loop["forward"], carries, ys):
            np.testing.assert_allclose(it["carry"][0]["preview"], [c], rtol=1e-5)
            np.testing.assert_allclose(it["outputs"][0]["preview"], [y], rtol=1e-5)
        assert card["notices"] == [{"kind": "loop_truncated", "eqn_id": loop["eqn_id"],
                                    "message": "first 4 of 6 iterations"}]
        iters = [s["iteration"] for s in card["timeline"] if s.get("iteration") is not None]
        assert iters == [0, 1, 2, 3]
        body = card["jaxpr"]["eqns"][0]["subjaxprs"][0]["jaxpr"]
        assert {e["outvars"][0]["id"] for e in body["eqns"]} <= set(card["values"])


def test_scan_backward_walks_iterations_in_reverse():
    for n, reverse in ((64, False), (3, False), (3, True)):
        f_d = rnn_loss(dnp, dlax, didax, reverse)
        f_j = rnn_loss(jnp, jlax, jax, reverse)
        (card,) = capture(lambda f=f_d: didax.grad(f, argnums=(0, 1))(XS, F32(0.3)), n=n)
        ref = Reference(f_j, [XS, F32(0.3)], card)
        check_backward(card, ref, [1.0], jax.grad(f_j, argnums=(0, 1))(XS, F32(0.3)))
        (loop,) = card["loops"]
        recorded = min(n, 6)
        assert [it["index"] for it in loop["backward"]] == list(range(recorded))[::-1]
        scan_steps = [s for s in backward_steps(card) if s["eqn_id"] == loop["eqn_id"]]
        assert [s.get("iteration") for s in scan_steps] == \
            ([None] if n < 6 else []) + list(range(recorded))[::-1]
        _check_iteration_cotangents(loop, f_j, reverse)


def _check_iteration_cotangents(loop, f_j, reverse):
    """Each recorded iteration's carry and x cotangents equal JAX's, from a Python loop
    with a zero probe added to the carry entering each iteration."""
    def probed(xs, c0, probes):
        c, total = c0, 0.0
        order = range(len(xs) - 1, -1, -1) if reverse else range(len(xs))
        for t, i in enumerate(order):
            c, y = step_fn(jnp)(c + probes[t], xs[i])
            total = total + y * 3.0
        return c**2 + total

    g_xs, g_probes = jax.grad(probed, argnums=(0, 2))(XS, F32(0.3), [F32(0.0)] * 6)
    for it in loop["backward"]:
        t = it["index"]
        row = 5 - t if reverse else t
        np.testing.assert_allclose(it["carry"][0]["preview"], [g_probes[t]], rtol=1e-4)
        np.testing.assert_allclose(it["outputs"][0]["preview"], [g_xs[row]], rtol=1e-4)


def test_scan_with_constants_and_vector_carry():
    w = np.array([[0.5, -0.2], [0.1, 0.9]], F32)

    def build(n, lax, jx):
        def loss(w, xs):
            c, ys = lax.scan(lambda c, x: (n.tanh(c @ w + x), n.sum(c)), n.zeros(2), xs)
            return n.sum(c) + n.sum(ys)
        return loss

    xs = XS.reshape(3, 2)
    f_d, f_j = build(dnp, dlax, didax), build(jnp, jlax, jax)
    (card,) = capture(lambda: didax.grad(f_d, argnums=(0, 1))(w, xs))
    received = check_backward(card, Reference(f_j, [w, xs], card), [1.0],
                              jax.grad(f_j, argnums=(0, 1))(w, xs))
    w_id = card["jaxpr"]["invars"][0]["id"]
    scan = next(e for e in card["jaxpr"]["eqns"] if e["primitive"] == "scan")
    consts = [a["id"] for a in scan["invars"][:2] if not a.get("literal")]
    assert any(len(received[c]) == 3 for c in consts), "one contribution per iteration"
    assert w_id in card["cotangents"]
    landings = {c.get("landing") for cs in received.values() for c in cs}
    assert {"[0, :] of f32[3,2]", "[2, :] of f32[3,2]"} <= landings


def test_fori_loop_is_labelled_and_its_jaxpr_is_jaxs():
    def build(n, lax):
        return lambda v: lax.fori_loop(0, 5, lambda i, x: x * 1.5 + i, v)

    (card,) = capture(lambda: didax.jit(build(dnp, dlax))(F32(1.0)), n=3)
    assert card["jaxpr"]["text"] == str(jax.make_jaxpr(build(jnp, jlax))(F32(1.0)))
    (loop,) = card["loops"]
    assert (loop["kind"], loop["length"], loop["recorded"]) == ("fori_loop", 5, 3)
    assert loop["carry_names"] == ["i", "val"]
    want, x = [], F32(1.0)
    for i in range(3):
        want.append((i, x))
        x = x * 1.5 + i
    got = [(it["carry"][0]["preview"][0], it["carry"][1]["preview"][0])
           for it in loop["forward"]]
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert "fori_loop: iterations 3..4 (not recorded), results" in [
        s["label"] for s in card["timeline"]]


def test_while_loop_and_dynamic_fori_loop():
    def newton(n, lax):
        def sqrt(a):
            def body(s):
                return 0.5 * (s[0] + a / s[0]), s[1] + 1
            return lax.while_loop(lambda s: (n.abs(s[0] ** 2 - a) > 1e-5) & (s[1] < 50),
                                  body, (a, 0))
        return sqrt

    (card,) = capture(lambda: didax.jit(newton(dnp, dlax))(F32(2.0)), n=3)
    (loop,) = card["loops"]
    assert loop["kind"] == "while_loop" and loop["recorded"] == 3 and loop["output_names"] == []
    a, want = jnp.float32(2.0), [jnp.float32(2.0)]
    while jnp.abs(want[-1] ** 2 - a) > 1e-5:  # the same loop in Python under JAX
        want.append(0.5 * (want[-1] + a / want[-1]))
    assert loop["length"] == len(want) - 1
    np.testing.assert_allclose([it["carry"][0]["preview"][0] for it in loop["forward"]],
                               want[:3], rtol=1e-6)
    (card,) = capture(lambda: didax.jit(newton(dnp, dlax))(F32(2.0)), n=2)
    assert card["notices"][0]["message"] == f"first 2 of {len(want) - 1} iterations"

    def dyn(n, lax):
        return lambda k, v: lax.fori_loop(0, k, lambda i, x: x + i, v)

    (card,) = capture(lambda: didax.jit(dyn(dnp, dlax))(4, F32(0.0)))
    assert card["jaxpr"]["text"] == str(jax.make_jaxpr(dyn(jnp, jlax))(4, F32(0.0)))
    (loop,) = card["loops"]
    assert (loop["kind"], loop["length"]) == ("fori_loop", 4)
    assert loop["carry_names"] == ["i", "upper", "val"]


def test_loops_under_forward_mode_and_nested_in_jit():
    def build(n, lax, jx):
        inner = jx.jit(lambda xs: lax.scan(lambda c, x: (c * x + 1.0, c), 1.0, xs)[0])
        return lambda xs: inner(xs) * 2.0

    f_d = build(dnp, dlax, didax)
    (card,) = capture(lambda: didax.jvp(f_d, (XS,), (np.ones(6, F32),)))
    assert card["loops"] and card["loops"][0]["recorded"] == 6
    _, want = jax.jvp(build(jnp, jlax, jax), (XS,), (np.ones(6, F32),))
    out = card["jaxpr"]["outvars"][0]["id"]
    np.testing.assert_allclose(card["tangents"][out]["preview"], [want], rtol=1e-5)


def test_fori_loop_under_grad_and_while_loop_under_jvp():
    x = XS[:3]

    def fori(n, lax):
        return lambda v: n.sum(lax.fori_loop(0, 4, lambda i, c: n.sin(c) * 1.5 + i * c, v))

    (card,) = capture(lambda: didax.grad(fori(dnp, dlax))(x), n=2)
    check_backward(card, Reference(fori(jnp, jlax), [x], card), [1.0],
                   [jax.grad(fori(jnp, jlax))(x)])
    (loop,) = card["loops"]
    assert loop["kind"] == "fori_loop" and [it["index"] for it in loop["backward"]] == [1, 0]

    def halving(n, lax):
        body = lambda s: (n.sin(s[0]) * 2.0, s[1] + 1)  # noqa: E731
        return lambda v: lax.while_loop(lambda s: s[1] < 3, body, (v, 0))[0]

    t = np.array([1.0, 0.5, -1.0], F32)
    (card,) = capture(lambda: didax.jvp(halving(dnp, dlax), (x,), (t,)))
    check_tangents(card, Reference(halving(jnp, jlax), [x], card), [t])
    c, carries = jnp.asarray(x), []
    for _ in range(3):
        carries.append(c)
        c = jnp.sin(c) * 2.0
    (loop,) = card["loops"]
    for it, want in zip(loop["forward"], carries, strict=True):
        np.testing.assert_allclose(it["carry"][0]["preview"], want, rtol=1e-6)
