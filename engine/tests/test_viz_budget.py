"""The size budget of trace cards: a card over `max_card_bytes` comes out cut to it, valid,
with `card_trimmed` notices — contribution heatmaps first, then contributions, heatmaps,
stage programs, and equations beyond a limit (the backward pass staying exact: the cut-off
equations are its first step, and the inputs still sum to JAX's gradient).
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
from didax._src.viz import budget
from flow_oracle import close

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "shared_schemas" / "src"))
from shared_schemas.trace import TraceCard  # noqa: E402

F32 = np.float32


def capture(fn, max_bytes):
    with viz.capture(max_card_bytes=max_bytes) as cards:
        fn()
    for card in cards:
        TraceCard.model_validate(card)
        assert budget.size(card) <= max_bytes, budget.size(card)
    return cards


def chain(n, steps):
    def f(x):
        for _ in range(steps):
            x = n.sin(x) * 1.01 + 0.1
        return n.sum(x)
    return f


def test_a_13k_equation_make_jaxpr_card_is_trimmed_and_valid():
    x = np.ones((8, 8), F32)
    (card,) = capture(lambda: didax.make_jaxpr(chain(dnp, 4400))(x), 2 << 20)
    assert card["error"] is None
    kinds = [n["kind"] for n in card["notices"]]
    assert kinds[0] == "card_trimmed" and "of 13201 equations" in card["notices"][0]["message"]
    shown = card["jaxpr"]["eqns"]
    assert 100 < len(shown) < 13201
    assert card["jaxpr"]["text"].endswith(
        f"… {13201 - len(shown)} more equations (card trimmed) …\n  in (…) }}")
    ids = {e["id"] for e in shown}
    assert all(s["eqn_id"] is None or s["eqn_id"] in ids for s in card["timeline"])


def test_a_trimmed_grad_card_still_sums_to_the_gradient():
    x = np.linspace(-1, 1, 6).astype(F32)
    (card,) = capture(lambda: didax.grad(chain(dnp, 200))(x), 200_000)
    assert "card_trimmed" in [n["kind"] for n in card["notices"]]
    assert len(card["jaxpr"]["eqns"]) < 601
    steps = [s for s in card["timeline"] if s["phase"] == "backward"]
    assert steps[0]["eqn_id"] is None and "equations beyond the card" in steps[0]["label"]
    x_id = card["jaxpr"]["invars"][0]["id"]
    close(card["cotangents"][x_id], jax.grad(chain(jnp, 200))(x), "grad of x")
    got = [c for s in steps for c in s["contributions"] if c["var_id"] == x_id]
    if got:  # (when the budget kept contributions, the last partial sum is the gradient)
        close(got[-1]["partial"], jax.grad(chain(jnp, 200))(x), "partial")


def test_trimming_order_heatmaps_then_contributions():
    m = np.arange(64 * 64, dtype=F32).reshape(64, 64) / 4096

    def f(w):
        return dnp.sum(dnp.tanh(w @ w) * w)

    with viz.capture() as cards:
        didax.grad(f)(m)
    size = budget.size(cards[0])
    (card,) = capture(lambda: didax.grad(f)(m), size - 1000)
    messages = [n["message"] for n in card["notices"]]
    assert messages and "contribution heatmaps" in messages[0]
    contributions = [c for s in card["timeline"] for c in s.get("contributions", [])]
    assert contributions and all(c["value"]["heatmap"] is None for c in contributions)
    assert any(v["heatmap"] is not None for v in card["values"].values())
    (card,) = capture(lambda: didax.grad(f)(m), size // 4)
    assert len(card["notices"]) >= 2 and "contributions" in card["notices"][1]["message"]
    assert all(not s.get("contributions") for s in card["timeline"])
    json.dumps(card, allow_nan=False)
