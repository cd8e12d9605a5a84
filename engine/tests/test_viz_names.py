"""The user's names on trace cards (VarData.user_name): parameters with pytree key paths
equal to JAX's own argument names (`debug_info.arg_names`), unnamed outputs named as JAX's
`result_paths`, names bound by assignment and unpacking on the line that made a value,
the outermost frame's name winning, and the same for grad, jit, vmap and nested cards,
inside jit bodies and in stage programs. Every card validates against the wire schema.
"""

from __future__ import annotations

import collections
import dataclasses
import json
import sys
from pathlib import Path

import didax
import didax.numpy as dnp
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from didax import viz

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "shared_schemas" / "src"))
from shared_schemas.trace import TraceCard  # noqa: E402

F32 = np.float32
P = collections.namedtuple("P", "w b")


def capture(fn):
    with viz.capture() as cards:
        fn()
    for card in cards:
        TraceCard.model_validate(card)
        json.dumps(card)
    return cards


def one_card(fn):
    cards = capture(fn)
    assert len(cards) == 1 and cards[0]["error"] is None, cards
    return cards[0]


def all_eqns(jaxpr):
    for e in jaxpr["eqns"]:
        yield e
        for sub in e["subjaxprs"]:
            yield from all_eqns(sub["jaxpr"])


def outs_named(jaxpr, primitive=None):
    """[(primitive, user_name)] of every equation output, nested ones included."""
    return [(e["primitive"], v.get("user_name")) for e in all_eqns(jaxpr)
            for v in e["outvars"] if primitive in (None, e["primitive"])]


def in_names(jaxpr):
    return [v.get("user_name") for v in jaxpr["invars"]]


# ----------------------------------------------------------------------------------------
# parameters and results, against JAX's debug info
# ----------------------------------------------------------------------------------------


def _batch_class(lib):
    @dataclasses.dataclass
    class Batch:
        x: object
        y: object

    return lib.tree_util.register_dataclass(Batch, data_fields=["x", "y"], meta_fields=[])


def _pytree_program(lib):
    n = lib.numpy

    def f(params, batch, scale, *rest):
        loss = n.sum(params["a"].w * batch.x) + params["l"][1] * scale + rest[0]
        return loss, (batch.y * 2.0, params["l"][0])
    return f


def _pytree_args(lib):
    params = {"a": P(np.ones(2, F32), np.ones(2, F32)), "l": [F32(1.0), np.ones((), F32)]}
    return params, _batch_class(lib)(np.ones(2, F32), np.ones(2, F32)), F32(2.0), F32(3.0)


def test_parameter_and_result_names_are_jaxs():
    info = jax.jit(_pytree_program(jax)).trace(*_pytree_args(jax)).jaxpr.jaxpr.debug_info
    card = one_card(lambda: didax.jit(_pytree_program(didax))(*_pytree_args(didax)))
    assert in_names(card["jaxpr"]) == list(info.arg_names)
    outs = card["jaxpr"]["outvars"]
    assert outs[0]["user_name"] == "loss"  # bound by assignment
    # unnamed outputs take JAX's result paths; an output that is an input keeps its name
    assert [o.get("user_name") for o in outs[1:]] == [info.result_paths[1], "params['l'][0]"]


def test_grad_names_only_the_differentiated_arguments():
    def f(params, x, y):
        return dnp.sum((params[0] * x + params[1] - y) ** 2)

    params = (np.ones(3, F32), np.zeros(3, F32))
    x, y = np.arange(3, dtype=F32), np.ones(3, F32)
    card = one_card(lambda: didax.grad(f, argnums=(0, 2))(params, x, y))
    assert in_names(card["jaxpr"]) == ["params[0]", "params[1]", "y"]
    # x is closed over: its constant carries the argument's name
    assert [v.get("user_name") for v in card["jaxpr"]["constvars"]] == ["x"]


def test_quadratic_form_names_follow_the_code():
    """The issue's example: y = xᵀAx + b·x + c, differentiated with respect to x."""
    def quad(x, A, b, c):
        y = x @ A @ x + b @ x + c
        return y

    A, b, x = np.eye(3, dtype=F32), np.ones(3, F32), np.arange(3, dtype=F32)
    card = one_card(lambda: didax.grad(quad)(x, A, b, F32(2.0)))
    jaxpr = card["jaxpr"]
    assert in_names(jaxpr) == ["x"]
    assert sorted(v["user_name"] for v in jaxpr["constvars"]) == ["A", "b"]
    assert outs_named(jaxpr)[-1] == ("add", "y")


# ----------------------------------------------------------------------------------------
# assignment, unpacking, loops, helpers, closures
# ----------------------------------------------------------------------------------------


def mlp(params, x):
    for w, b in params[:-1]:
        x = dnp.tanh(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def dense(w, b, x):
    out = dnp.tanh(x @ w + b)
    return out


MLP_PARAMS = [(np.ones((2, 4), F32), np.zeros(4, F32)), (np.ones((4, 4), F32), np.zeros(4, F32)),
              (np.ones((4, 1), F32), np.zeros(1, F32))]
X = np.ones((3, 2), F32)


def test_reassignment_in_a_loop_names_every_iteration():
    card = one_card(lambda: didax.grad(lambda p, x: dnp.sum(mlp(p, x)))(MLP_PARAMS, X))
    assert outs_named(card["jaxpr"], "tanh") == [("tanh", "x"), ("tanh", "x")]
    assert in_names(card["jaxpr"]) == [f"p[{i}][{j}]" for i in range(3) for j in range(2)]


def test_unpacking_helpers_and_the_outermost_name():
    def f(p, x):
        h = dense(p["w1"], p["b1"], x)  # dense names it `out`; here it is `h`
        a, b = dnp.split(h, 2, axis=1)
        z = dense(p["w2"], p["b2"], a * b)
        return dnp.sum(z)

    p = {"w1": np.ones((2, 4), F32), "b1": np.zeros(4, F32), "w2": np.ones((2, 2), F32),
         "b2": np.zeros(2, F32)}
    card = one_card(lambda: didax.grad(f)(p, X))
    got = outs_named(card["jaxpr"])
    assert [n for prim, n in got if prim == "tanh"] == ["h", "z"]
    assert [n for prim, n in got if prim == "split"] == ["a", "b"]
    assert got[-1] == ("reduce_sum", "result")


def test_names_are_made_on_their_line_only():
    scale = dnp.asarray(np.full(3, 2.0, F32))

    def f(x):
        y = dnp.sin(x)
        alias = y  # noqa: F841 - names nothing new: y was made on the line above

        def inner(v):
            return v * scale  # a closure over a global array

        w = inner(y)
        return w

    card = one_card(lambda: didax.grad(lambda x: dnp.sum(f(x)))(np.ones(3, F32)))
    assert outs_named(card["jaxpr"])[:2] == [("sin", "y"), ("mul", "w")]
    assert [v.get("user_name") for v in card["jaxpr"]["constvars"]] == ["scale"]


# ----------------------------------------------------------------------------------------
# nested cards, jit bodies, stages
# ----------------------------------------------------------------------------------------


def test_names_inside_jit_bodies_and_nested_cards():
    jdense = didax.jit(dense)

    def f(w, x):
        h = jdense(w, np.zeros(4, F32), x)
        return dnp.sum(h * h)

    w = np.ones((2, 4), F32)
    jdense(w, np.zeros(4, F32), X)  # the body's trace is cached: cards trace it again
    for run in (lambda: didax.grad(f)(w, X), lambda: didax.grad(didax.jit(f))(w, X),
                lambda: didax.jit(didax.grad(f))(w, X)):
        card = one_card(run)
        assert ("tanh", "out") in outs_named(card["jaxpr"]), card["title"]
        assert in_names(card["jaxpr"])[:1] == ["w"]


def test_vmap_card_and_stage_names():
    card = one_card(lambda: didax.vmap(dense, in_axes=(None, None, 0))(
        np.ones((2, 4), F32), np.zeros(4, F32), np.ones((5, 3, 2), F32)))
    assert in_names(card["jaxpr"]) == ["w", "b", "x"]
    (stage,) = [s for s in card["stages"] if s["name"] == "vmap"]
    assert in_names(stage["jaxpr"]) == ["w", "b", "x"]
    assert ("tanh", "out") in outs_named(stage["jaxpr"])


@pytest.mark.parametrize("stage_name", ["jvp", "partial_eval_known"])
def test_stage_programs_name_primal_values(stage_name):
    def f(x):
        y = dnp.sin(x) * 2.0
        return dnp.sum(y * y)

    card = one_card(lambda: didax.grad(f)(np.ones(3, F32)))
    (stage,) = [s for s in card["stages"] if s["name"] == stage_name]
    assert in_names(stage["jaxpr"])[0] == "x"
    named = [n for _, n in outs_named(stage["jaxpr"]) if n]
    assert named.count("y") == 1, named  # the primal value, not its tangent


def test_unnamed_tuple_results_are_named_as_jax_names_them():
    def f(n):
        return lambda x: (n.sin(x), (n.cos(x) * 2.0,))

    info = jax.jit(f(jnp)).trace(jnp.ones(2)).jaxpr.jaxpr.debug_info
    card = one_card(lambda: didax.jit(f(dnp))(dnp.ones(2)))
    assert [o.get("user_name") for o in card["jaxpr"]["outvars"]] == list(info.result_paths)
