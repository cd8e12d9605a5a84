"""The kernel's runner (unit): the jax alias, card sanitising, error descriptions, output
order, matplotlib figures and coalesced call counts (run in-process, without the engine)."""

from __future__ import annotations

import base64
import json
import os
import sys
import types

from sandbox.engine import CardSink
from sandbox.plots import MAX_FIGURES, MAX_IMAGE_CHARS
from sandbox.runner import (
    JaxAlias,
    describe_error,
    execute,
    missing_module_hint,
    run_request,
    sanitize,
)


def test_alias_maps_jax_to_the_target_modules(monkeypatch):
    fake = types.ModuleType("fakedidax")
    fake.__path__ = []  # a package
    sub = types.ModuleType("fakedidax.numpy")
    monkeypatch.setitem(sys.modules, "fakedidax", fake)
    monkeypatch.setitem(sys.modules, "fakedidax.numpy", sub)
    for name in ("jax", "jax.numpy"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    finder = JaxAlias("fakedidax")
    monkeypatch.setattr(sys, "meta_path", [finder, *sys.meta_path])
    import jax
    import jax.numpy as jnp

    assert jax is fake and jnp is sub
    assert fake.__spec__ is None or fake.__spec__.name != "jax"
    for name in ("jax", "jax.numpy"):
        sys.modules.pop(name, None)


def test_sanitize_non_finite():
    card = {"min": float("nan"), "preview": [1.0, float("inf"), float("-inf"), float("nan")]}
    clean = sanitize(card)
    assert clean == {"min": None, "preview": [1.0, "inf", "-inf", "nan"]}
    json.dumps(clean, allow_nan=False)


def test_describe_error_kinds():
    lines = ["x = 1", "raise MemoryError()"]
    err = execute("\n".join(lines), _NullCtx(), lines)
    assert err["kind"] == "memory" and err["user_line"] == 2
    assert execute("import sys\nsys.exit(0)", _NullCtx(), []) is None
    assert execute("import sys\nsys.exit(2)", _NullCtx(), [])["exc_type"] == "SystemExit"
    err = describe_error(KeyboardInterrupt(), [])
    assert err["kind"] == "cancelled" and err["user_line"] is None


class _NullCtx:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _Channel:
    def __init__(self):
        self.events = []

    def send(self, event):
        json.dumps(event, allow_nan=False)  # what the real channel does with it
        self.events.append(event)


class _Engine:
    """No didax: the runner's own behaviour (streams, figures, errors) only."""

    def configure(self, settings):
        pass

    def card_sink(self, channel, run_id, *streams):
        return types.SimpleNamespace(count=0, flush_updates=lambda: None)

    def capture(self, settings, sink):
        return _NullCtx()


def _run(code, monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    channel = _Channel()
    done = run_request({"id": "r1", "code": code, "settings": {}}, channel, _Engine())
    return done, [e for e in channel.events if e["type"] != "status"]


def test_stdout_and_stderr_keep_program_order(monkeypatch, tmp_path):
    # (warnings are checked through a real kernel in api/test_output.py: pytest records them)
    code = (
        "import sys\n"
        "print('a', end='')\n"
        "print('E1', file=sys.stderr)\n"
        "print('b')\n"
        "sys.stderr.write('E2 ')\n"
        "print('c')\n"
        "raise ValueError('boom')\n"
    )
    done, events = _run(code, monkeypatch, tmp_path)
    texts = [(e["name"], e["text"]) for e in events]
    assert texts == [
        ("stdout", "a"),
        ("stderr", "E1\n"),
        ("stdout", "b\n"),
        ("stderr", "E2 "),
        ("stdout", "c\n"),
    ]
    assert done["error"]["exc_type"] == "ValueError" and done["error"]["user_line"] == 7


def test_missing_module_names_what_the_kernel_has(monkeypatch, tmp_path):
    done, _ = _run("import surely_not_a_module_xyz\n", monkeypatch, tmp_path)
    msg = done["error"]["message"]
    assert msg.startswith("No module named 'surely_not_a_module_xyz'. ")
    assert "numpy" in msg and "matplotlib" in msg and "jax (didax)" not in msg.split("has")[0]
    assert "standard library" in msg
    hint = missing_module_hint("didax.experimental.pallas")
    assert "has no module jax.experimental.pallas" in hint


def test_plots_show_in_order_with_text_and_open_figures_at_the_end(monkeypatch, tmp_path):
    code = (
        "import matplotlib.pyplot as plt\n"
        "import numpy as np\n"
        "x = np.linspace(-3, 3, 50)\n"
        "plt.plot(x, np.sin(x)); plt.title('sine')\n"
        "print('before')\n"
        "plt.show()\n"
        "print('after')\n"
        "plt.figure(); plt.scatter(np.arange(20000) % 97, np.arange(20000) % 89)\n"
    )
    done, events = _run(code, monkeypatch, tmp_path)
    assert done["ok"], done["error"]
    kinds = [e.get("text", e["type"]) for e in events]
    assert kinds == ["before\n", "display", "after\n", "display"]
    svg, png = events[1], events[3]
    assert svg["mime"] == "image/svg+xml" and svg["data"].lstrip().startswith("<?xml")
    assert svg["alt"] == "Figure 1: sine" and (svg["width"], svg["height"]) == (614, 461)
    assert png["mime"] == "image/png"  # a dense scatter is too large as SVG
    assert base64.b64decode(png["data"])[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(png["data"]) <= MAX_IMAGE_CHARS
    assert os.environ["MPLCONFIGDIR"].startswith(str(tmp_path))


def test_figure_count_is_bounded(monkeypatch, tmp_path):
    code = (
        "import matplotlib.pyplot as plt\n"
        f"for i in range({MAX_FIGURES + 3}):\n"
        "    plt.figure(); plt.plot([0, i]); plt.show()\n"
    )
    done, events = _run(code, monkeypatch, tmp_path)
    assert done["ok"]
    assert sum(e["type"] == "display" for e in events) == MAX_FIGURES
    notes = [e["text"] for e in events if e["type"] == "stream"]
    assert notes == [f"[plot] more figures were not shown: a run shows at most {MAX_FIGURES}\n"]


def test_call_counts_are_coalesced_and_the_last_one_is_sent(monkeypatch):
    clock = [0.0]
    monkeypatch.setattr("sandbox.engine.time.monotonic", lambda: clock[0])
    channel = _Channel()
    channel.send_text = lambda text: channel.events.append(json.loads(text))
    sink = CardSink(channel, "r1", {}, ())
    sink.max_cards = 8
    sink({"card_id": "card-0"})
    for n in range(2, 100_002):  # a loop calling one jitted function 100,000 times in 1 s
        clock[0] += 1e-5
        sink.update("card-0", n)
    sink({"card_id": "card-1"})  # counts so far go out before the next card
    sink.update("card-1", 2)
    sink.update("card-0", 100_002)
    sink.flush_updates()  # the end of the run
    kinds = [(e["type"], e.get("card_id") or e["card"]["card_id"]) for e in channel.events]
    updates = [e for e in channel.events if e["type"] == "card_update"]
    assert len(updates) <= 15, len(updates)
    assert kinds.index(("trace_card", "card-1")) > kinds.index(("card_update", "card-0"))
    last = {u["card_id"]: u["call_count"] for u in updates}
    assert last == {"card-0": 100_002, "card-1": 2}
    counts = [u["call_count"] for u in updates if u["card_id"] == "card-0"]
    assert counts == sorted(counts) and counts[-2] == 100_001
