"""Regenerates the engine-made trace card samples in shared_schemas/examples/valid:

    .venv/bin/python scripts/sample_cards.py

Each sample is a small program recorded by `didax.viz` (stages left out to keep the files
small), validated and dumped by the wire model, wrapped in a `trace_card` envelope:
`server.trace_card.fanout.json` (grad with per-step contributions at a fan-out),
`server.trace_card.jvp.json` (tangents) and `server.trace_card.scan.json` (a loop record).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "engine" / "src"), str(ROOT / "shared_schemas" / "src")]

from didax import viz  # noqa: E402

from shared_schemas import ServerEnvelope  # noqa: E402

OUT = ROOT / "shared_schemas" / "examples" / "valid"


PROGRAMS = {
    "fanout": """
import didax as jax
import didax.numpy as jnp

def f(x):
    return jnp.sin(x) * x**2

jax.grad(f)(1.5)
""",
    "jvp": """
import didax as jax
import didax.numpy as jnp

def f(x):
    return jnp.tanh(x) * x

jax.jvp(f, (jnp.array([0.5, -1.0, 2.0]),), (jnp.array([1.0, 0.0, 0.5]),))
""",
    "scan": """
import didax as jax
import didax.numpy as jnp
from didax import lax

def cumulative(xs):
    return lax.scan(lambda c, x: (c + x, c * x), 0.0, xs)

jax.grad(lambda xs: cumulative(xs)[0] ** 2)(jnp.arange(3.0))
""",
}


def main() -> None:
    for name, program in PROGRAMS.items():
        if sys.argv[1:] and name not in sys.argv[1:]:
            continue
        with viz.capture(compile=False) as cards:
            exec(compile(program, "<user>", "exec"), {"__name__": "__main__"})
        card = dict(cards[0], stages=[])
        env = {"protocol_version": 2, "id": f"s-{name}", "parent_id": "c-1",
               "msg": {"type": "trace_card", "run_id": "c-1", "card": card}}
        dumped = ServerEnvelope.model_validate(env).model_dump(mode="json")
        path = OUT / f"server.trace_card.{name}.json"
        path.write_text(json.dumps(dumped, indent=1) + "\n")
        print(f"wrote {path.relative_to(ROOT)} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
