"""Lowered code linked to source: `Lowered.as_text(debug_info=True)` equals JAX's (op names
from the name stack — named_scope, named_call, nested jit, jvp/transpose/vmap — and the
Python call stack as callsite locations), XLA's optimized HLO carries the same op metadata
and source lines as JAX's, and a card's StableHLO/HLO rows (Stage.rows) link to the
equation each op was lowered from and its user line.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import didax
import jax
import numpy as np
import pytest
from didax import viz
from didax._src.viz import rowlinks

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "shared_schemas" / "src"))
from shared_schemas.trace import TraceCard  # noqa: E402

F32 = np.float32


def scopes(lib):
    lax = lib.lax

    def f(x, y):
        a = lax.mul(lax.sin(x), y)
        with lib.named_scope("outer"):
            b = lax.exp(a)
            with lib.named_scope("inner"):
                c = lax.add(b, lax.cos(y))
        return lib.named_call(lambda v: lax.neg(v), name="negate")(c)
    return f, (np.ones(3, F32), np.ones(3, F32))


def nested_jit(lib):
    lax = lib.lax

    @lib.jit
    def h(x):
        return lax.mul(lax.cos(x), 2.0)

    def f(x, y):
        a = lax.sin(x)
        with lib.named_scope("blk"):
            return lax.add(h(a), y)
    return f, (F32(1.0), F32(2.0))


def transforms(lib):
    lax = lib.lax

    def g(x):
        return lax.mul(lax.sin(x), 2.0)

    def f(x):
        a = lib.grad(g)(x)
        c = lib.jvp(g, (x,), (x,))[1]
        d = lib.vmap(lax.cos)(lax.broadcast(x, (3,)))
        return lax.add(lax.add(a, c), lax.reduce_sum(d, (0,)))
    return f, (F32(1.0),)


def layers(lib):
    lax = lib.lax

    def dense(w, x):
        return lax.tanh(lax.mul(x, w))

    def f(params, x):
        for w in params:
            x = dense(w, x)
        return lax.reduce_sum(x, (0, 1))
    return f, ([np.ones((2, 3), F32)] * 2, np.ones((2, 3), F32))


def mlp_loss(lib):
    """A 2-layer MLP's loss in jax.numpy (dots, bias broadcasts whose transposes sum
    size-1 dims, mean) and its arguments."""
    n = lib.numpy

    def mlp(params, x):
        h = n.tanh(x @ params["W1"] + params["b1"])
        return h @ params["W2"] + params["b2"]

    def loss(params, x, y):
        return n.mean((mlp(params, x) - y) ** 2)
    params = {"W1": np.full((3, 4), 0.1, F32), "b1": np.zeros(4, F32),
              "W2": np.full((4, 1), 0.1, F32), "b2": np.zeros(1, F32)}
    return loss, (params, np.ones((5, 3), F32), np.zeros((5, 1), F32))


def mlp_grad(lib):
    """The issue's program: jit(grad(loss))."""
    loss, args = mlp_loss(lib)
    return lib.grad(loss), args


def train_step(lib):
    """A jitted step calling value_and_grad inside, with a tree_map update."""
    loss, (params, x, y) = mlp_loss(lib)

    def step(params, x, y):
        with lib.named_scope("train"):  # backward: train/transpose(jvp(loss)), as JAX's
            value, grads = lib.value_and_grad(loss)(params, x, y)
        return lib.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads), value
    return step, (params, x, y)


def vmap_grad(lib):
    """Per-example gradients: the backward pass is `vmap(transpose(jvp()))` as in JAX."""
    n = lib.numpy

    def loss(w, x):
        with lib.named_scope("model"):
            return n.sum(n.sin(x @ w))
    return lib.vmap(lib.grad(loss), in_axes=(None, 0)), (np.ones((3, 2), F32),
                                                         np.ones((4, 5, 3), F32))


def precisions(lib):
    lax = lib.lax

    def f(a, b):
        return (lib.numpy.dot(a, b, precision=lax.Precision.HIGHEST)
                + lax.dot(a, b, precision=(lax.Precision.HIGH, lax.Precision.DEFAULT))
                + a @ b)
    return f, (np.ones((3, 3), F32), np.ones((3, 3), F32))


PROGRAMS = [scopes, nested_jit, transforms, layers, mlp_grad, train_step, vmap_grad,
            precisions]


def lowered_texts(program):
    """(JAX's, didax's) lowering of one program, both called from the same line."""
    out = []
    for lib in (jax, didax):
        f, args = program(lib)
        lowered = lib.jit(f).lower(*args)
        out.append((lowered.as_text(), lowered.as_text(debug_info=True),
                    lowered.compile().as_text(), lowered.as_text("hlo", debug_info=True)))
    return out


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_debug_info_text_and_hlo_metadata_are_jaxs(program):
    (j_plain, j_debug, j_hlo, j_meta), (d_plain, d_debug, d_hlo, d_meta) = \
        lowered_texts(program)
    assert d_plain == j_plain
    assert "loc(" not in d_plain
    assert d_debug == j_debug
    # unoptimized and compiled HLO carry the same op metadata and source-location tables
    assert _frames_of_files(d_meta) == _frames_of_files(j_meta) and "stack_frame_id" in d_meta
    assert _frames_of_files(_compiled(d_hlo)) == _frames_of_files(_compiled(j_hlo))


def _compiled(hlo: str) -> str:
    """A compiled module's text without its header line (compile options) and backend
    configs (XLA prints one JSON message's fields in either order)."""
    return re.sub(r", backend_config=\{.*\}$", "", hlo.split("\n", 1)[1], flags=re.M)


def _frames_of_files(hlo: str) -> str:
    """hlo without the column ranges of frames from code that has no file (`<string>`: a
    pytest-xdist worker's bootstrap, whose module-level frame JAX's C++ traceback and
    Python's co_positions place differently); every other location must be equal."""
    names = dict(re.findall(r'^(\d+) "(.*)"$', hlo.split("FunctionNames")[0], re.M))
    strings = {k for k, v in names.items() if v.startswith("<")}
    return re.sub(r"^(\d+ \{file_name_id=(\d+) .*?line=\d+ end_line=\d+).*$",
                  lambda m: m.group(1) if m.group(2) in strings else m.group(0), hlo,
                  flags=re.M)


def gelu_program():
    """The issue's case: an HLO row from gelu (its own line) must not point elsewhere."""
    dnp = didax.numpy

    def gelu(x):
        return 0.5 * x * (1.0 + dnp.tanh(0.8 * (x + 0.04 * x ** 3)))  # GELU LINE

    @didax.jit
    def head(h):
        return dnp.exp(h) * 3.0  # HEAD LINE

    def f(w, x):
        with didax.named_scope("layer"):
            h = gelu(x @ w)
        return dnp.sum(head(h))
    return f, (np.ones((3, 4), F32), np.ones((2, 3), F32))


def _line_of(marker: str) -> int:
    lines = Path(__file__).read_text().splitlines()
    return next(i + 1 for i, s in enumerate(lines) if s.endswith("# " + marker))


def _card():
    f, args = gelu_program()
    with viz.capture() as cards:
        didax.jit(f)(*args)
    (card,) = cards
    TraceCard.model_validate(card)
    return card


def _eqns(jaxpr):
    for e in jaxpr["eqns"]:
        yield e
        for sub in e["subjaxprs"]:
            yield from _eqns(sub["jaxpr"])


def test_stablehlo_rows_link_each_op_to_its_equation_and_line():
    card = _card()
    eqns = {e["id"]: e for e in _eqns(card["jaxpr"])}
    stage = next(s for s in card["stages"] if s["name"] == "stablehlo")
    text = stage["text"].splitlines()
    assert "loc(" not in stage["text"]  # the page shows JAX's default text
    by_row = {r["row"]: r for r in stage["rows"]}
    assert list(by_row) == sorted(by_row)
    ops = [i for i, s in enumerate(text) if re.search(r"= (stablehlo\.|call )", s)]
    assert ops and all(by_row.get(i, {}).get("line") for i in ops)
    for row in stage["rows"]:
        eqn = eqns.get(row["eqn_id"])
        if eqn is None:
            continue
        assert row["line"] == eqn["source"]["line"], (text[row["row"]], eqn["primitive"])
        if eqn["primitive"] in ("tanh", "exp", "dot_general"):
            assert {"tanh": "tanh", "exp": "exponential", "dot_general": "dot_general"}[
                eqn["primitive"]] in text[row["row"]]
    tanh_row = next(r for r in stage["rows"] if "stablehlo.tanh" in text[r["row"]])
    assert tanh_row["line"] == _line_of("GELU LINE")
    assert tanh_row["op_name"] == "jit(f)/layer/tanh"


def test_hlo_rows_land_on_the_users_lines():
    card = _card()
    eqns = {e["id"]: e for e in _eqns(card["jaxpr"])}
    stage = next(s for s in card["stages"] if s["name"] == "hlo")
    text = stage["text"].splitlines()
    linked = [r for r in stage["rows"] if r["eqn_id"] is not None]
    assert linked
    for row in linked:
        assert row["line"] == eqns[row["eqn_id"]]["source"]["line"], text[row["row"]]
    tanh = [r for r in stage["rows"] if r["op_name"] == "jit(f)/layer/tanh"]
    assert tanh and all(r["line"] == _line_of("GELU LINE") for r in tanh)
    exp = [r for r in stage["rows"] if (r["op_name"] or "").endswith("/exp")]
    assert exp and all(r["line"] == _line_of("HEAD LINE") for r in exp)  # inlined jit body
    params = [r for r in stage["rows"] if "parameter(" in text[r["row"]] and r["op_name"]
              in ("w", "x")]
    assert len(params) == 2


def test_location_parsing():
    full = ('"jit:"("jit(f)/jit"(callsite("f"("a.py":7:8 to :18) at '
            '"<module>"("a.py":12:6 to 13:2))))')
    assert rowlinks.parse_loc(full) == ("jit(f)/jit", ("a.py", 7, 8, 7, 18))
    assert rowlinks.parse_loc('"x"') == ("x", None)
    assert rowlinks.parse_loc("unknown") == (None, None)
    defs = {"#loc1": '"a.py":1:0', "#loc2": '"g"(#loc1)', "#loc3": '"jit(f)/sin"(#loc2)'}
    assert rowlinks.expand("#loc3", defs, {}) == '"jit(f)/sin"("g"("a.py":1:0))'


# ----------------------------------------------------------------------------------------
# every op row of a composition card's compiled stages
# ----------------------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]


def _gallery_step_cards():
    code = (ROOT / "backend/app/examples/12-mlp-training-step.py").read_text()
    code = code.replace("import jax.numpy as jnp", "import didax.numpy as jnp")
    code = code.replace("import jax\n", "import didax as jax\n")
    with viz.capture() as cards:
        exec(compile(code, "<user>", "exec"), {"__name__": "__main__", "print": lambda *a: 0})
    return cards


def _jit_grad_cards():
    loss, args = mlp_loss(didax)
    with viz.capture() as cards:
        didax.jit(didax.grad(loss))(*args)
    return cards


_OP_ROW = re.compile(r"^\s*(%[\w#:.\-]+ = |(ROOT )?%[\w.\-]+ = |stablehlo\.\w+ |\}\) )")


def _op_rows(stage) -> list[int]:
    """Rows of the text that compute something (StableHLO ops and region ends, HLO
    instructions), without entry-computation parameters (inputs, named by op_name)."""
    out, entry = [], False
    for i, s in enumerate(stage["text"].splitlines()):
        entry = entry or s.startswith("ENTRY")
        if _OP_ROW.match(s) and "stablehlo.return" not in s and not (
                entry and " parameter(" in s):
            out.append(i)
    return out


@pytest.mark.parametrize("make", [_jit_grad_cards, _gallery_step_cards],
                         ids=["jit(grad(loss))", "jitted training step"])
def test_every_op_row_of_a_composition_card_is_linked(make):
    (card,) = make()
    TraceCard.model_validate(card)
    eqns = {e["id"]: e for e in _eqns(card["jaxpr"])}
    eqn_lines = {e["source"]["line"] for e in eqns.values() if e.get("source")}
    primitive = {"stablehlo.tanh": "tanh", " tanh(": "tanh", "stablehlo.dot_general": None,
                 " dot(": None}
    for name in ("stablehlo", "hlo"):
        stage = next(s for s in card["stages"] if s["name"] == name)
        text = stage["text"].splitlines()
        by_row = {r["row"]: r for r in stage["rows"]}
        for i in _op_rows(stage):
            row = by_row.get(i)
            assert row is not None and row["line"], (name, text[i])
            if row["eqn_id"] is None:  # only ops outside the card's program (the update)
                assert row["line"] not in eqn_lines, (name, text[i], row)
                continue
            eqn = eqns[row["eqn_id"]]
            assert eqn["source"]["line"] == row["line"], (name, text[i], row)
            for op, prim in primitive.items():
                if op in text[i] and prim:
                    assert eqn["primitive"] == prim, (name, text[i], row)
                if op in text[i] and prim is None:
                    assert eqn["primitive"] in ("dot_general", "transpose"), (text[i], row)
        params = [by_row[i] for i, s in enumerate(text) if " parameter(" in s and i in by_row
                  and s.startswith("  %") and by_row[i]["line"] is None]
        assert name == "stablehlo" or {p["op_name"] for p in params} >= {"x", "y"}
