"""What a run's output looks like through the real server and a fully sandboxed kernel:
streams and warnings in program order before the traceback, matplotlib figures as `display`
messages in order with the text (read-only filesystem, no home: the font cache comes from the
kernel venv), and a missing module that names what the kernel has."""

from __future__ import annotations

import base64

import pytest
from helpers import client

pytestmark = pytest.mark.sandbox

PLOT = """
import jax
import jax.numpy as jnp
import matplotlib.pyplot as plt
import os

f = lambda x: jnp.sin(x) * x
xs = jnp.linspace(-3.0, 3.0, 61)
plt.plot(xs, f(xs), label="f")
plt.plot(xs, jax.vmap(jax.grad(f))(xs), label="grad f")
plt.title("f and its gradient")
print("cache", sorted(os.listdir(os.environ["MPLCONFIGDIR"])))
plt.show()
print("after")
plt.figure()
plt.plot([3.0, 2.0, 1.5])
"""


def test_print_warning_and_traceback_keep_program_order(sandbox_server):
    code = (
        "import sys, warnings\n"
        "print('first')\n"
        "warnings.warn('second')\n"
        "print('third', file=sys.stderr)\n"
        "print('fourth')\n"
        "raise RuntimeError('fifth')\n"
    )
    with client(sandbox_server) as c:
        c.hello()
        reply, msgs = c.run(code)
    streams = [(m["name"], m["text"]) for m in msgs if m["type"] == "stream"]
    assert streams[0] == ("stdout", "first\n")
    assert streams[1][0] == "stderr" and "UserWarning: second" in streams[1][1]
    assert "third\n" in streams[1][1] or streams[2] == ("stderr", "third\n")
    assert streams[-1] == ("stdout", "fourth\n")
    assert reply["error"]["exc_type"] == "RuntimeError" and reply["error"]["user_line"] == 6
    assert [m["type"] for m in msgs][-2:] == ["status", "run_reply"]


def test_plots_arrive_as_images_in_order_in_the_full_sandbox(sandbox_server):
    with client(sandbox_server) as c:
        assert c.hello()["sandbox"]["mode"] == "full"
        reply, msgs = c.run(PLOT)
    assert reply["ok"], reply["error"]
    order = [m["type"] if m["type"] != "stream" else m["text"].split()[0] for m in msgs]
    order = [o for o in order if o not in ("status", "run_reply", "trace_card")]
    assert order == ["cache", "display", "after", "display"]
    cache_line = next(m["text"] for m in msgs if m["type"] == "stream")
    assert "fontlist-" in cache_line  # seeded from the kernel venv, not rebuilt
    first, second = [m for m in msgs if m["type"] == "display"]
    assert first["alt"] == "Figure 1: f and its gradient"
    assert first["mime"] == "image/svg+xml" and "<svg" in first["data"]
    assert second["mime"] in ("image/svg+xml", "image/png")
    if second["mime"] == "image/png":
        assert base64.b64decode(second["data"]).startswith(b"\x89PNG")


def test_missing_module_lists_the_importable_packages(sandbox_server):
    with client(sandbox_server) as c:
        c.hello()
        reply, _ = c.run("import torch\n")
    err = reply["error"]
    assert err["exc_type"] == "ModuleNotFoundError" and err["user_line"] == 1
    assert err["message"].startswith("No module named 'torch'. This playground cannot install")
    for name in ("jax (didax)", "numpy", "matplotlib", "standard library"):
        assert name in err["message"]
