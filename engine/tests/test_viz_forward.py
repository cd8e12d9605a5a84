"""Forward mode on trace cards, with real JAX as the oracle: jvp, linearize, jacfwd and the
forward half of hessian record the tangent of every primal variable that depends on the
inputs, equal to `jax.jvp` of the prefix computing it; forward steps reveal values and
tangents together; a notice says which direction a Jacobian card shows.
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
from flow_oracle import Reference, check_backward, check_tangents

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "shared_schemas" / "src"))
from shared_schemas.trace import TraceCard  # noqa: E402

F32 = np.float32
X = np.array([0.5, -1.0, 2.0, 0.25], F32)
T = np.array([1.0, 0.0, -2.0, 0.5], F32)


def capture(fn):
    with viz.capture() as cards:
        fn()
    for card in cards:
        TraceCard.model_validate(card)
        json.dumps(card, allow_nan=False)
    return cards


def program(n, lax, jx):
    inner = jx.jit(lambda a: n.tanh(a) * a)

    def f(x):
        y = inner(x) + n.sin(x) ** 2
        return lax.cond(n.sum(y) > 0, lambda v: v * v, lambda v: -v, y)[1:3]
    return f


def test_jvp_tangents_are_jaxs_through_jit_and_cond():
    f_d, f_j = program(dnp, dlax, didax), program(jnp, jlax, jax)
    (card,) = capture(lambda: didax.jvp(f_d, (X,), (T,)))
    assert card["error"] is None and card["notices"] == []
    check_tangents(card, Reference(f_j, [X], card), [T])
    x = card["jaxpr"]["invars"][0]["id"]
    assert card["tangents"][x]["preview"] == T.tolist()
    for step in card["timeline"]:
        assert step["phase"] == "forward"
        tangents = [v for v in step["var_ids"] if v in card["tangents"]]
        assert set(tangents) <= set(card["values"])


def test_only_values_that_depend_on_the_inputs_have_tangents():
    c = np.arange(4, dtype=F32)

    def f(x):
        k = dnp.cos(c) * 2.0  # a constant: no tangent
        return dnp.sum(x * k), dnp.argmax(x)

    (card,) = capture(lambda: didax.jvp(f, (X,), (T,)))
    cos_out = next(e for e in card["jaxpr"]["eqns"] if e["primitive"] == "cos")["outvars"][0]
    argmax = next(e for e in card["jaxpr"]["eqns"] if e["primitive"] == "argmax")
    assert cos_out["id"] in card["values"] and cos_out["id"] not in card["tangents"]
    assert argmax["outvars"][0]["id"] not in card["tangents"]


def test_jacfwd_and_hessian_show_direction_e0():
    def f(n):
        return lambda x: n.sum(n.sin(x) * x[::-1])

    e0 = np.eye(4, dtype=F32)[0]
    for kind in ("jacfwd", "hessian"):
        transform = getattr(didax, kind)
        (card,) = capture(lambda t=transform: t(f(dnp))(X))
        check_tangents(card, Reference(f(jnp), [X], card), [e0])
        assert card["notices"][0]["kind"] == "selection"
        assert "e0" in card["notices"][0]["message"]
    # hessian's backward half: grad(f) at the point, contribution by contribution
    check_backward(card, Reference(f(jnp), [X], card), [1.0], [jax.grad(f(jnp))(X)])


def test_linearize_shows_ones():
    f = lambda n: lambda x: n.exp(x) * x  # noqa: E731
    (card,) = capture(lambda: didax.linearize(f(dnp), X))
    check_tangents(card, Reference(f(jnp), [X], card), [np.ones(4, F32)])


def test_custom_jvp_tangents_use_the_rule():
    def build(n, jx):
        @jx.custom_jvp
        def g(x):
            return n.sin(x)

        g.defjvp(lambda p, t: (g(p[0]), t[0] * 10.0))
        return lambda x: g(x) * 2.0

    (card,) = capture(lambda: didax.jvp(build(dnp, didax), (X,), (T,)))
    check_tangents(card, Reference(build(jnp, jax), [X], card), [T])
    out = card["jaxpr"]["outvars"][0]["id"]
    np.testing.assert_allclose(card["tangents"][out]["preview"], T * 20.0)


def test_jvp_of_pytrees():
    def f(n):
        return lambda p: n.sum(n.tanh(p["a"] * p["b"][0]))

    params, tangents = {"a": X, "b": [F32(0.7)]}, {"a": T, "b": [F32(1.0)]}
    (card,) = capture(lambda: didax.jvp(f(dnp), (params,), (tangents,)))
    assert card["notices"] == []  # the user's own tangents: no choice to announce
    flat, tree = jax.tree.flatten(params)
    ref = Reference(lambda *xs: f(jnp)(jax.tree.unflatten(tree, list(xs))), flat, card)
    check_tangents(card, ref, jax.tree.leaves(tangents))
