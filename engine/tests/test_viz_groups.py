"""The hierarchy on trace cards (TraceCard.groups, EqnData.group): one `call` group per call
of a user function (repeated calls are distinct groups, nested calls nest),
`jax.named_scope`/`named_call` blocks as `named_scope` groups, nested jits as `jit` groups
holding their bodies, transformations inside the card's function as `transform` groups;
`named_scope`/`named_call` leave the jaxpr text exactly as JAX prints it; the gallery's MLP
training step opens to a small overview.
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

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "shared_schemas" / "src"))
from shared_schemas.trace import TraceCard  # noqa: E402

F32 = np.float32
ROOT = Path(__file__).resolve().parents[2]


def one_card(fn):
    with viz.capture() as cards:
        fn()
    assert len(cards) == 1 and cards[0]["error"] is None, cards
    TraceCard.model_validate(cards[0])
    json.dumps(cards[0])
    return cards[0]


def all_eqns(jaxpr):
    for e in jaxpr["eqns"]:
        yield e
        for sub in e["subjaxprs"]:
            yield from all_eqns(sub["jaxpr"])


def path(card, eqn):
    """[(kind, name)] of an equation's groups, outermost first."""
    by_id = {g["id"]: g for g in card["groups"]}
    out, gid = [], eqn.get("group")
    while gid is not None:
        out.append((by_id[gid]["kind"], by_id[gid]["name"]))
        gid = by_id[gid]["parent"]
    return out[::-1]


def gelu(x):
    return 0.5 * x * (1 + dnp.tanh(0.8 * x))


def dense(w, x):
    return gelu(x @ w)


def test_each_call_is_a_group_and_calls_nest():
    def f(w1, w2, x):
        h = dense(w1, x)
        return dnp.sum(dense(w2, h))

    w = np.ones((3, 3), F32)
    card = one_card(lambda: didax.grad(f)(w, w, np.ones((2, 3), F32)))
    eqns = list(all_eqns(card["jaxpr"]))
    tanhs = [e for e in eqns if e["primitive"] == "tanh"]
    assert [path(card, e) for e in tanhs] == [[("call", "dense"), ("call", "gelu")]] * 2
    first, second = (e["group"] for e in tanhs)
    assert first != second  # two calls, two groups
    dots = [e for e in eqns if e["primitive"] == "dot_general"]
    assert [path(card, e) for e in dots] == [[("call", "dense")]] * 2
    assert path(card, eqns[-1]) == []  # the card function's own body
    site = {g["name"]: g["call_site"] for g in card["groups"]}["dense"]
    assert site["user"] and site["function"].endswith("f")


def test_calls_from_one_line_in_a_loop_are_distinct():
    def f(ws, x):
        for w in ws:
            x = dense(w, x)
        return dnp.sum(x)

    ws = [np.ones((3, 3), F32)] * 3
    card = one_card(lambda: didax.jit(f)(ws, np.ones((2, 3), F32)))
    dense_groups = [g for g in card["groups"] if g["name"] == "dense"]
    assert len(dense_groups) == 3 and all(g["parent"] is None for g in dense_groups)


def scoped(n, lib):
    def f(x):
        with lib.named_scope("layer1"):
            y = n.sin(x) * 2.0
            with lib.named_scope("inner"):
                y = n.cos(y)
        z = lib.named_call(lambda v: v + 1.0, name="bump")(y)
        return n.sum(z)
    return f


def test_named_scope_and_named_call_groups_and_unchanged_jaxpr_text():
    x = np.ones(3, F32)
    assert str(didax.make_jaxpr(scoped(dnp, didax))(x)) == str(
        jax.make_jaxpr(scoped(jnp, jax))(x))
    card = one_card(lambda: didax.jit(scoped(dnp, didax))(x))
    paths = {e["primitive"]: path(card, e) for e in all_eqns(card["jaxpr"])}
    assert paths["sin"] == [("named_scope", "layer1")]
    assert paths["cos"] == [("named_scope", "layer1"), ("named_scope", "inner")]
    assert paths["add"] == [("named_scope", "bump"), ("call", "<lambda>")]
    assert paths["reduce_sum"] == []


def test_a_scope_inside_a_helper_nests_in_its_call():
    def helper(x):
        with didax.named_scope("block"):
            return dnp.exp(x)

    def f(x):
        return dnp.sum(helper(x) + helper(x * 2.0))

    card = one_card(lambda: didax.grad(f)(np.ones(3, F32)))
    exps = [e for e in all_eqns(card["jaxpr"]) if e["primitive"] == "exp"]
    assert [path(card, e) for e in exps] == [[("call", "helper"), ("named_scope", "block")]] * 2
    assert exps[0]["group"] != exps[1]["group"]


def test_nested_jit_is_a_group_holding_its_body():
    jdense = didax.jit(dense)

    def f(w, x):
        with didax.named_scope("net"):
            h = jdense(w, x)
        return dnp.sum(h)

    card = one_card(lambda: didax.grad(f)(np.ones((3, 3), F32), np.ones((2, 3), F32)))
    (jit_eqn,) = [e for e in card["jaxpr"]["eqns"] if e["primitive"] == "jit"]
    assert path(card, jit_eqn) == [("named_scope", "net")]
    body = list(all_eqns(jit_eqn["subjaxprs"][0]["jaxpr"]))
    assert path(card, body[0]) == [("named_scope", "net"), ("jit", "jit(dense)")]
    tanh = next(e for e in body if e["primitive"] == "tanh")
    assert path(card, tanh)[-1] == ("call", "gelu")


def test_transformations_inside_the_function_are_groups():
    def loss(w, x):
        return dnp.sum(dense(w, x) ** 2)

    def step(w, x):
        g = didax.grad(loss)(w, x)
        return w - 0.1 * g

    # (a jit of step would make the card of the grad inside it: a composition card)
    card = one_card(lambda: didax.make_jaxpr(step)(np.ones((3, 3), F32), np.ones((2, 3), F32)))
    tops = {tuple(path(card, e)[:2]) for e in all_eqns(card["jaxpr"]) if path(card, e)}
    assert (("transform", "jvp(loss)"), ("call", "loss")) in tops
    assert (("transform", "transpose(jvp(loss))"), ("call", "loss")) in tops
    vm = one_card(lambda: didax.jit(lambda x: didax.vmap(gelu)(x))(np.ones((2, 3), F32)))
    assert {path(vm, e)[0] for e in all_eqns(vm["jaxpr"])} == {("transform", "vmap(gelu)")}


def test_gallery_mlp_step_opens_to_a_small_overview():
    code = (ROOT / "backend/app/examples/12-mlp-training-step.py").read_text()
    code = code.replace("import jax.numpy as jnp", "import didax.numpy as jnp")
    code = code.replace("import jax\n", "import didax as jax\n")
    with viz.capture() as cards:
        exec(compile(code, "<user>", "exec"), {"__name__": "__main__", "print": lambda *a: 0})
    card = cards[0]
    TraceCard.model_validate(card)
    tops = {g["id"] for g in card["groups"] if g["parent"] is None}
    loose = [e for e in card["jaxpr"]["eqns"] if e.get("group") is None]
    assert 2 <= len(tops) + len(loose) <= 25
    assert "mlp" in {g["name"] for g in card["groups"]}  # loss's body calls mlp


def test_a_jit_body_shared_by_two_calls_is_two_groups():
    jdense = didax.jit(dense)

    def f(w, x):
        return dnp.sum(jdense(w, x) * jdense(w, x * 2.0))

    card = one_card(lambda: didax.grad(f)(np.ones((3, 3), F32), np.ones((2, 3), F32)))
    first, second = [e for e in card["jaxpr"]["eqns"] if e["primitive"] == "jit"]
    groups = [{b["group"] for b in all_eqns(j["subjaxprs"][0]["jaxpr"])} for j in (first, second)]
    assert groups[0].isdisjoint(groups[1])
    assert [path(card, next(all_eqns(j["subjaxprs"][0]["jaxpr"]))) for j in (first, second)] \
        == [[("jit", "jit(dense)")]] * 2


def test_the_big_graph_benchmark_card():
    """bench/programs/transformer_grad.py (the page benchmark's card): value_and_grad of a
    4-layer transformer block stack in plain jax.numpy records about 2,000 equations,
    grouped by the user's calls into a small overview, with the user's names."""
    code = (ROOT / "bench/programs/transformer_grad.py").read_text()
    code = code.replace("import jax.numpy as jnp", "import didax.numpy as jnp")
    code = code.replace("import jax\n", "import didax as jax\n")
    with viz.capture(compile=False, max_card_bytes=10 << 20) as cards:
        exec(compile(code, "<user>", "exec"), {"__name__": "__main__", "print": lambda *a: 0})
    card = max(cards, key=lambda c: len(c["jaxpr"]["eqns"]))
    TraceCard.model_validate(card)
    assert card["error"] is None and card["title"] == "value_and_grad(loss)"
    assert len(list(all_eqns(card["jaxpr"]))) >= 2000
    assert not [n for n in card["notices"] if "equations are shown" in n["message"]]
    tops = {g["id"] for g in card["groups"] if g["parent"] is None}
    loose = [e for e in card["jaxpr"]["eqns"] if e.get("group") is None]
    assert len(tops) + len(loose) <= 25
    names = {g["name"] for g in card["groups"]}
    assert {"model", "block", "attention", "head", "softmax", "mlp", "gelu",
            "layer_norm"} <= names
    assert len([g for g in card["groups"] if g["name"] == "head"]) == 4 * 14
    assert "params['layers'][3]['mlp']['w2']" in [v["user_name"] for v in
                                                   card["jaxpr"]["invars"]]
