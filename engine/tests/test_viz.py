"""didax.viz, the playground's recorder: one trace card per top-level transformation call
in program order (none for nested or internal calls), every card valid against the wire
schema (shared_schemas.trace.TraceCard), jaxpr data consistent with its text (names and
spans), forward values and cotangents equal to the real ones (JAX as the oracle for
gradients), stage jaxprs mapped to primal equations, forward-then-backward timelines, and
failures recorded on the card while the user's program goes on.
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
import pytest
from didax import viz

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "shared_schemas" / "src"))
from shared_schemas.trace import TraceCard  # noqa: E402

F32 = np.float32


def program(n):
    """A small program whose intermediate values are easy to recompute with NumPy."""
    def loss(x, y):
        a = n.sin(x)
        b = a * y
        c = b + x
        return n.sum(c * c)
    return loss


def numpy_intermediates(x, y):
    a = np.sin(x)
    b = a * y
    c = b + x
    d = c * c
    return [a, b, c, d, np.sum(d)]


X = np.linspace(-1.0, 1.0, 4).astype(F32)
Y = F32(1.5)


def capture(fn, **kw):
    with viz.capture(**kw) as cards:
        fn()
    for card in cards:
        TraceCard.model_validate(card)
        json.dumps(card)  # wire-ready: plain JSON, no NaN/Inf
    return cards


def all_eqns(jaxpr_data):
    for e in jaxpr_data["eqns"]:
        yield e
        for sub in e["subjaxprs"]:
            yield from all_eqns(sub["jaxpr"])


def all_jaxprs(jaxpr_data):
    yield jaxpr_data
    for e in jaxpr_data["eqns"]:
        for sub in e["subjaxprs"]:
            yield from all_jaxprs(sub["jaxpr"])


def preview_array(summary):
    return np.asarray(summary["preview"], np.float64).reshape(summary["shape"])


# ----------------------------------------------------------------------------------------
# one card per top-level call, in program order
# ----------------------------------------------------------------------------------------

KINDS = {
    "grad": lambda: didax.grad(program(dnp))(X, Y),
    "value_and_grad": lambda: didax.value_and_grad(program(dnp))(X, Y),
    "vjp": lambda: didax.vjp(program(dnp), X, Y),
    "jvp": lambda: didax.jvp(program(dnp), (X, Y), (X, Y)),
    "linearize": lambda: didax.linearize(program(dnp), X, Y),
    "vmap": lambda: didax.vmap(program(dnp), (0, None))(np.stack([X, X]), Y),
    "jit": lambda: didax.jit(program(dnp))(X, Y),
    "make_jaxpr": lambda: didax.make_jaxpr(program(dnp))(X, Y),
    "jacfwd": lambda: didax.jacfwd(dnp.sin)(X),
    "jacrev": lambda: didax.jacrev(dnp.sin)(X),
    "hessian": lambda: didax.hessian(program(dnp))(X, Y),
    "show": lambda: viz.show(program(dnp), X, Y),
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_each_kind_makes_one_valid_card(kind):
    cards = capture(KINDS[kind])
    assert len(cards) == 1
    card = cards[0]
    assert card["kind"] == kind and card["error"] is None
    assert card["index"] == 0 and card["card_id"] == "card-0"
    assert card["call_site"]["user"] and card["call_site"]["file"] == __file__
    assert card["jaxpr"]["eqns"], "the primal program is recorded"
    assert card["title"].startswith(kind + "(")


def test_program_order_and_call_sites():
    def run():
        didax.grad(program(dnp))(X, Y)  # line A
        didax.jit(program(dnp))(X, Y)
        didax.vmap(dnp.sin)(X)
        didax.make_jaxpr(dnp.cos)(X)

    cards = capture(run)
    assert [c["kind"] for c in cards] == ["grad", "jit", "vmap", "make_jaxpr"]
    assert [c["index"] for c in cards] == [0, 1, 2, 3]
    lines = [c["call_site"]["line"] for c in cards]
    assert lines == sorted(lines) and len(set(lines)) == 4
    src = Path(__file__).read_text().splitlines()
    assert "line A" in src[lines[0] - 1]


def test_no_cards_for_nested_or_internal_calls():
    inner = didax.jit(lambda v: dnp.cos(v) * 2)

    def f(x):
        return didax.grad(lambda z: dnp.sin(z) * inner(z))(x)

    def run():
        didax.jit(f)(1.0)  # one card: the jit; the grad and inner jit inside are nested
        didax.vmap(f)(dnp.ones(3))
        didax.grad(lambda x: dnp.sum(dnp.linspace(0, 1, 3) * x) + inner(x))(1.0)
        dnp.linspace(0, 1, 5)  # didax's own jitted numpy functions are not cards
        dnp.take(dnp.ones(3), dnp.array([0]))
        inner(2.0)

    cards = capture(run)
    # a jit / vmap that differentiates inside is the card of that differentiation
    assert [c["kind"] for c in cards] == ["grad", "grad", "grad", "jit"]
    assert [c["transforms"] for c in cards] == [["jit", "grad"], ["vmap", "grad"], ["grad"],
                                                ["jit"]]


def test_max_cards_and_on_card_callback():
    seen = []
    cards = capture(lambda: [didax.jit(dnp.sin)(dnp.ones(i)) for i in range(5)], max_cards=3,
                    on_card=seen.append)
    assert len(cards) == 3 and seen == cards
    assert [c["index"] for c in cards] == [0, 1, 2]


def test_capture_is_transparent():
    """Results inside capture equal results outside, and nothing is recorded after it."""
    f = program(dnp)
    outside = [didax.grad(f)(X, Y), didax.jit(f)(X, Y), didax.vmap(dnp.sin)(X)]
    with viz.capture() as cards:
        inside = [didax.grad(f)(X, Y), didax.jit(f)(X, Y), didax.vmap(dnp.sin)(X)]
    for a, b in zip(outside, inside):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    didax.grad(f)(X, Y)
    assert len(cards) == 3
    assert viz.show(dnp.sin, 1.0) == dnp.sin(1.0)  # outside capture: just calls


# ----------------------------------------------------------------------------------------
# the jaxpr as data: text, names and spans
# ----------------------------------------------------------------------------------------


def check_jaxpr_data(jd):
    text = jd["text"]
    ends = []
    for e in jd["eqns"]:
        start, end = e["span"]["start"], e["span"]["end"]
        assert 0 <= start < end <= len(text)
        seg = text[start:end]
        names = [v["name"] for v in e["outvars"]]
        # the equation's printed text: "outs = prim[params] ins", outputs with their types
        assert seg.split("=", 1)[0].split() == [
            f"{v['name']}:{v['aval']['short']}" for v in e["outvars"]], (seg, names)
        assert seg.split("=", 1)[1].lstrip().startswith(e["primitive"])
        for a in e["invars"]:
            shown = a["value"] if a.get("literal") else a["name"]
            assert shown in seg
        for sub in e["subjaxprs"]:
            assert sub["jaxpr"]["text"] in seg
            check_jaxpr_data(sub["jaxpr"])
        ends.append((start, end))
    assert ends == sorted(ends) and all(a[1] <= b[0] for a, b in zip(ends, ends[1:]))
    # the spans cover exactly the equations between `let` and the closing `in`
    body = text[text.index("let") + 3:text.rindex(" in ")]
    # (a one-line jaxpr separates its equations with "; ")
    def squash(t):
        return "".join(t.replace(";", " ").split())

    assert squash(body) == "".join(squash(text[s:e]) for s, e in ends)
    for v in jd["invars"] + jd["constvars"]:
        assert f"{v['name']}:{v['aval']['short']}" in text


@pytest.mark.parametrize("kind", list(KINDS))
def test_jaxpr_data_agrees_with_its_text(kind):
    card = capture(KINDS[kind])[0]
    check_jaxpr_data(card["jaxpr"])
    for stage in card["stages"]:
        if stage["jaxpr"] is not None:
            check_jaxpr_data(stage["jaxpr"])
            assert stage["text"] == stage["jaxpr"]["text"]


def test_card_text_is_jaxs_jaxpr_text():
    cards = capture(lambda: didax.make_jaxpr(program(dnp))(X, Y))
    assert cards[0]["jaxpr"]["text"] == str(jax.make_jaxpr(program(jnp))(X, Y))


def test_nested_jit_and_custom_rules_have_subjaxprs():
    @didax.custom_jvp
    def softplus(x):
        return dnp.log1p(dnp.exp(x))

    softplus.defjvp(lambda p, t: (softplus(p[0]), t[0] / (1 + dnp.exp(-p[0]))))

    def f(x):
        h = didax.jit(lambda a: dnp.tanh(a) * 2.0)(x)
        return dnp.sum(softplus(h))

    card = capture(lambda: didax.grad(f)(X))[0]
    eqns = {e["primitive"]: e for e in card["jaxpr"]["eqns"]}
    assert [s["param"] for s in eqns["jit"]["subjaxprs"]] == ["jaxpr"]
    assert [s["param"] for s in eqns["custom_jvp_call"]["subjaxprs"]] == ["call_jaxpr"]
    assert eqns["jit"]["params"]["name"] == "<lambda>"
    assert "jaxpr" not in eqns["jit"]["params"]
    assert eqns["custom_jvp_call"]["params"]["jvp"] == "<lambda>"
    inner = eqns["jit"]["subjaxprs"][0]["jaxpr"]
    assert [e["primitive"] for e in inner["eqns"]] == ["tanh", "mul"]
    check_jaxpr_data(card["jaxpr"])
    ids = [e["id"] for e in all_eqns(card["jaxpr"])]
    assert len(ids) == len(set(ids))


def test_variables_literals_and_sources():
    card = capture(lambda: didax.make_jaxpr(lambda x: x * 2.0 + 1)(X))[0]
    jd = card["jaxpr"]
    mul = jd["eqns"][0]
    assert mul["primitive"] == "mul"
    assert mul["invars"][0]["id"] == jd["invars"][0]["id"]
    lit = mul["invars"][1]
    # jnp promotes the Python scalar to x's (strong) dtype before multiplying, as JAX
    assert lit == {"literal": True, "value": "2.0",
                   "aval": {"shape": [], "dtype": "float32", "weak_type": False,
                            "short": "f32[]"}}
    assert jax.make_jaxpr(lambda x: x * 2.0)(X).eqns[0].invars[1].aval.weak_type is False
    assert mul["source"]["user"] and mul["source"]["file"] == __file__
    out = jd["outvars"][0]
    assert out["id"] == jd["eqns"][-1]["outvars"][0]["id"]
    assert out["aval"] == {"shape": [4], "dtype": "float32", "weak_type": False,
                           "short": "f32[4]"}


# ----------------------------------------------------------------------------------------
# forward values and cotangents
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["grad", "jit", "show", "make_jaxpr", "value_and_grad"])
def test_forward_values_are_the_real_ones(kind):
    card = capture(KINDS[kind])[0]
    jd = card["jaxpr"]
    want = numpy_intermediates(X, Y)
    outs = [e["outvars"][0]["id"] for e in jd["eqns"]]
    assert len(outs) == len(want)
    for var_id, value in zip(outs, want):
        s = card["values"][var_id]
        np.testing.assert_allclose(preview_array(s), value, rtol=1e-5, atol=1e-6)
        assert s["min"] == pytest.approx(float(np.min(value)), rel=1e-5, abs=1e-6)
        assert s["max"] == pytest.approx(float(np.max(value)), rel=1e-5, abs=1e-6)
        assert s["mean"] == pytest.approx(float(np.mean(value)), rel=1e-5, abs=1e-6)
        assert s["norm"] == pytest.approx(float(np.linalg.norm(value)), rel=1e-5, abs=1e-6)
    x_id = jd["invars"][0]["id"]
    np.testing.assert_allclose(preview_array(card["values"][x_id]), X)
    # the outputs of the call itself (make_jaxpr returns a jaxpr, not arrays)
    assert bool(card["outputs"]) == (kind != "make_jaxpr")


def test_value_summaries_are_bounded_and_json_safe():
    big = np.arange(40.0, dtype=F32)
    special = np.array([np.nan, np.inf, -np.inf, 1.0, -2.0], F32)
    card = capture(lambda: didax.jit(lambda a, b: (a * 2, b + 1, a > 3))(big, special))[0]
    summaries = {tuple(s["shape"]) + (s["dtype"],): s for s in card["outputs"]}
    s = summaries[(40, "float32")]
    assert s["truncated"] and len(s["preview"]) == 16 and s["preview"][:3] == [0.0, 2.0, 4.0]
    s = summaries[(5, "float32")]
    assert s["nan_count"] == 1 and s["inf_count"] == 2
    assert s["preview"][:3] == ["nan", "inf", "-inf"]
    assert s["min"] == -1.0 and s["max"] == 2.0  # statistics over finite elements
    s = summaries[(40, "bool")]
    assert s["preview"][:5] == [False, False, False, False, True]


def _grad_card(f_didax, *args, **kw):
    return capture(lambda: didax.grad(f_didax, **kw)(*args))[0]


def test_input_cotangents_equal_jax_grad():
    card = _grad_card(program(dnp), X, Y)
    x_id = card["jaxpr"]["invars"][0]["id"]
    want = jax.grad(program(jnp))(X, Y)
    np.testing.assert_allclose(preview_array(card["cotangents"][x_id]), want, rtol=1e-5)

    card = _grad_card(program(dnp), X, Y, argnums=(0, 1))
    wants = jax.grad(program(jnp), argnums=(0, 1))(X, Y)
    for var, w in zip(card["jaxpr"]["invars"], wants):
        np.testing.assert_allclose(preview_array(card["cotangents"][var["id"]]), w, rtol=1e-5)


def test_intermediate_cotangents_equal_jax():
    """The cotangent of every intermediate: JAX's gradient with respect to a zero added to
    that intermediate."""
    def probed(x, y, p):
        a = jnp.sin(x) + p[0]
        b = a * y + p[1]
        c = b + x + p[2]
        d = c * c + p[3]
        return jnp.sum(d) + p[4]

    probes = [np.zeros_like(v) for v in numpy_intermediates(X, Y)]
    want = jax.grad(probed, argnums=2)(X, Y, probes)
    card = _grad_card(program(dnp), X, Y)
    outs = [e["outvars"][0]["id"] for e in card["jaxpr"]["eqns"]]
    for var_id, w in zip(outs, want):
        np.testing.assert_allclose(preview_array(card["cotangents"][var_id]), w, rtol=1e-5)
    assert float(card["cotangents"][outs[-1]]["preview"][0]) == 1.0


def test_cotangents_through_jit_and_for_every_reverse_kind():
    def f(n, jx):
        return lambda x: n.sum(jx.jit(lambda a: n.tanh(a) * 3.0)(x) ** 2)

    want = jax.grad(f(jnp, jax))(X)
    for kind, call in [("grad", lambda: didax.grad(f(dnp, didax))(X)),
                       ("value_and_grad", lambda: didax.value_and_grad(f(dnp, didax))(X)),
                       ("vjp", lambda: didax.vjp(f(dnp, didax), X)),
                       ("jacrev", lambda: didax.jacrev(f(dnp, didax))(X)),
                       ("hessian", lambda: didax.hessian(f(dnp, didax))(X))]:
        card = capture(call)[0]
        assert card["kind"] == kind
        x_id = card["jaxpr"]["invars"][0]["id"]
        np.testing.assert_allclose(preview_array(card["cotangents"][x_id]), want, rtol=1e-5)
        inner_ids = {v["id"] for e in all_eqns(card["jaxpr"]) for v in e["outvars"]}
        assert inner_ids <= set(card["cotangents"]) | set()  # inside the jit body too


def test_no_cotangents_for_forward_kinds():
    for kind in ("jvp", "linearize", "vmap", "jit", "make_jaxpr", "jacfwd", "show"):
        assert capture(KINDS[kind])[0]["cotangents"] == {}


# ----------------------------------------------------------------------------------------
# stages
# ----------------------------------------------------------------------------------------

STAGES = {
    "grad": ["jvp", "partial_eval_known", "partial_eval_unknown", "linear", "transpose"],
    "value_and_grad": ["jvp", "partial_eval_known", "partial_eval_unknown", "linear",
                       "transpose"],
    "vjp": ["jvp", "partial_eval_known", "partial_eval_unknown", "linear", "transpose"],
    "jacrev": ["jvp", "partial_eval_known", "partial_eval_unknown", "linear", "transpose"],
    "hessian": ["jvp", "partial_eval_known", "partial_eval_unknown", "linear", "transpose"],
    "jvp": ["jvp"],
    "jacfwd": ["jvp"],
    "linearize": ["jvp", "partial_eval_known", "partial_eval_unknown"],
    "vmap": ["vmap"],
    "jit": ["stablehlo", "hlo", "cost_analysis"],
    "show": ["stablehlo", "hlo", "cost_analysis"],
    "make_jaxpr": [],
}


@pytest.mark.parametrize("kind", list(STAGES))
def test_stages_per_kind(kind):
    card = capture(KINDS[kind])[0]
    assert [s["name"] for s in card["stages"]] == STAGES[kind]
    primal_ids = {e["id"] for e in all_eqns(card["jaxpr"])}
    for stage in card["stages"]:
        if stage["language"] == "jaxpr":
            assert stage["jaxpr"] is not None
            mapped = [e["primal_eqn"] for e in all_eqns(stage["jaxpr"])]
            assert any(m is not None for m in mapped), stage["name"]
            assert {m for m in mapped if m is not None} <= primal_ids, stage["name"]
            stage_ids = {e["id"] for e in all_eqns(stage["jaxpr"])}
            assert not stage_ids & primal_ids  # card-unique equation ids
        else:
            assert stage["jaxpr"] is None and stage["text"]


def test_stage_texts_are_the_programs_jax_prints():
    def jvp_card():
        return capture(lambda: didax.jvp(program(dnp), (X, Y), (X, Y)))[0]

    card = jvp_card()
    jvp_text = card["stages"][0]["text"]
    assert jvp_text == str(jax.make_jaxpr(
        lambda x, y, tx, ty: jax.jvp(program(jnp), (x, y), (tx, ty)))(X, Y, X, Y))
    card = capture(KINDS["vmap"])[0]
    assert card["stages"][0]["text"] == str(jax.make_jaxpr(
        jax.vmap(program(jnp), (0, None)))(np.stack([X, X]), Y))


def test_compiled_stages():
    card = capture(KINDS["jit"])[0]
    hlo_stage = {s["name"]: s for s in card["stages"]}
    assert hlo_stage["stablehlo"]["language"] == "mlir"
    assert hlo_stage["stablehlo"]["text"] == didax.jit(program(dnp)).lower(X, Y).as_text()
    assert hlo_stage["hlo"]["language"] == "hlo"
    assert hlo_stage["hlo"]["text"].startswith("HloModule jit_loss")
    cost = hlo_stage["cost_analysis"]
    assert cost["language"] == "json" and cost["cost"]["flops"] > 0
    assert json.loads(cost["text"])["flops"] == cost["cost"]["flops"]
    assert capture(KINDS["jit"], compile=False)[0]["stages"] == []


def test_reverse_stage_mapping_points_at_the_right_equations():
    card = _grad_card(program(dnp), X, Y)
    prim_of = {e["id"]: e["primitive"] for e in all_eqns(card["jaxpr"])}
    stages = {s["name"]: s for s in card["stages"]}
    for e in all_eqns(stages["jvp"]["jaxpr"]):
        if e["primal_eqn"] is not None and e["primitive"] in ("sin", "cos"):
            assert prim_of[e["primal_eqn"]] == "sin"  # sin's JVP makes sin and cos
    for e in all_eqns(stages["transpose"]["jaxpr"]):
        if e["primitive"] == "add_any":
            continue
        assert e["primal_eqn"] is not None, e


# ----------------------------------------------------------------------------------------
# timelines
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(KINDS))
def test_timeline_is_forward_then_backward(kind):
    card = capture(KINDS[kind])[0]
    steps = card["timeline"]
    assert [s["index"] for s in steps] == list(range(len(steps)))
    phases = [s["phase"] for s in steps]
    assert phases == sorted(phases, key=lambda p: p == "backward")
    fwd = [s for s in steps if s["phase"] == "forward"]
    bwd = [s for s in steps if s["phase"] == "backward"]
    eqn_ids = [e["id"] for e in card["jaxpr"]["eqns"]]
    assert [s["eqn_id"] for s in fwd[1:]] == eqn_ids
    assert fwd[0]["eqn_id"] is None
    for s in fwd:
        assert set(s["var_ids"]) <= set(card["values"])
    if kind in ("grad", "value_and_grad", "vjp", "jacrev", "hessian"):
        assert [s["eqn_id"] for s in bwd[1:]] == eqn_ids[::-1]
        for s in bwd:
            assert set(s["var_ids"]) <= set(card["cotangents"])
    else:
        assert bwd == []


# ----------------------------------------------------------------------------------------
# failures
# ----------------------------------------------------------------------------------------


def test_a_function_that_fails_to_trace_gets_an_error_card():
    def run():
        for bad in (lambda x: x.no_such_attribute, lambda x: dnp.ones(3) * x):
            try:
                didax.grad(bad)(1.0)
            except (AttributeError, TypeError):
                pass  # the user's program sees its exception and goes on
        didax.grad(dnp.sin)(1.0)

    cards = capture(run)
    assert [c["kind"] for c in cards] == ["grad", "grad", "grad"]
    assert "AttributeError" in cards[0]["error"] and cards[0]["jaxpr"]["eqns"] == []
    assert "Gradient only defined for scalar-output functions" in cards[1]["error"]
    assert cards[1]["stages"] == [] and cards[1]["cotangents"] == {}
    assert cards[2]["error"] is None and cards[2]["cotangents"]


def test_user_exceptions_propagate_unchanged():
    with viz.capture() as cards:
        with pytest.raises(ZeroDivisionError):
            didax.jit(lambda x: 1 / 0)(1.0)
        with pytest.raises(ValueError, match="boom"):
            viz.show(lambda x: (_ for _ in ()).throw(ValueError("boom")), 1.0)
    assert [c["kind"] for c in cards] == ["jit", "show"]
    assert all(c["error"] for c in cards)
    for c in cards:
        TraceCard.model_validate(c)


def test_recording_failure_never_breaks_the_program(monkeypatch):
    from didax._src.viz import capture as capture_mod

    def broken(inp):
        raise RuntimeError("recorder bug")

    monkeypatch.setattr(capture_mod, "build_card", broken)
    with viz.capture() as cards:
        out = didax.grad(dnp.sin)(0.5)
    assert float(out) == pytest.approx(np.cos(0.5))
    assert len(cards) == 1 and "recorder bug" in cards[0]["error"]
    TraceCard.model_validate(cards[0])


def test_cards_for_integer_and_non_differentiable_programs():
    def run():
        didax.jit(lambda x: x // 2)(np.arange(4, dtype=np.int32))
        didax.vmap(lambda x: x > 1)(np.arange(3.0, dtype=F32))
        didax.grad(lambda x, k: x * k, allow_int=True)(2.0, 3)

    cards = capture(run)
    assert [c["error"] for c in cards] == [None, None, None]
    assert cards[0]["values"]


def test_recording_does_not_repeat_the_programs_effects(capsys):
    from didax.experimental import io_callback

    log = []
    spec = didax.ShapeDtypeStruct((), F32)

    def f(x):
        didax.debug.print("x={}", x)
        k = io_callback(lambda v: log.append(float(v)) or F32(3.0), spec,
                        didax.lax.stop_gradient(x))
        return dnp.sin(x) * k

    with viz.capture() as cards:
        didax.jit(f)(F32(1.0))
        didax.grad(f)(F32(1.0))
        didax.vmap(f)(dnp.ones(2))
    assert log == [1.0, 1.0, 1.0, 1.0]  # once per user call (twice in the vmap)
    assert capsys.readouterr().out.count("x=") == 4
    for card in cards:
        assert card["error"] is None
        eqns = card["jaxpr"]["eqns"]
        io_out = next(e for e in eqns if e["primitive"] == "io_callback")["outvars"][0]["id"]
        sin_out = next(e for e in eqns if e["primitive"] == "sin")["outvars"][0]["id"]
        assert io_out not in card["values"]  # unknown without running the callback again
        assert sin_out in card["values"]
        assert card["cotangents"] == {}
