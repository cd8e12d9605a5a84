"""Recording overhead of the playground's recorder (didax.viz) on the gallery's MLP training
step (backend/app/examples/12-mlp-training-step.py): the program run as the kernel runs it
(`jax` aliased to didax, fresh globals), once plainly and once inside `viz.capture()` with
cards serialised as the kernel sends them. Each measurement is a fresh process (so both pay
their own tracing and XLA compilation), plain and recorded alternate, and the median of the
rounds is reported with the ratio (target: recorded <= 3x plain).

    python bench/recording.py [--rounds 5] [--example 12-mlp-training-step]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGET = 3.0

CHILD = r"""
import io, json, sys, time
sys.path[:0] = [{backend!r}, {engine!r}]
from sandbox.runner import install_alias
install_alias("didax")
import didax
from didax import viz
didax.jit(lambda x: x * 2.0)(1.0)  # XLA client and first dispatch, outside the timing
code = compile(open({path!r}).read(), "<user>", "exec")
out, sys.stdout = sys.stdout, io.StringIO()
sent = []
t0 = time.perf_counter()
if {record!r}:
    def on_card(card):
        sent.append(len(json.dumps(card, separators=(",", ":"), allow_nan=False)))
    with viz.capture(on_card=on_card, on_card_update=lambda *a: None):
        exec(code, {{"__name__": "__main__"}})
else:
    exec(code, {{"__name__": "__main__"}})
elapsed = time.perf_counter() - t0
sys.stdout = out
print(json.dumps({{"s": elapsed, "cards": len(sent), "bytes": sum(sent)}}))
"""


def measure(path: Path, record: bool) -> dict:
    code = CHILD.format(backend=str(REPO / "backend"), engine=str(REPO / "engine" / "src"),
                        path=str(path), record=record)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=REPO)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--example", default="12-mlp-training-step")
    opts = ap.parse_args(argv)
    path = REPO / "backend" / "app" / "examples" / f"{opts.example}.py"
    plain, recorded, last = [], [], {}
    for _ in range(opts.rounds):
        plain.append(measure(path, False)["s"])
        last = measure(path, True)
        recorded.append(last["s"])
    p, r = statistics.median(plain), statistics.median(recorded)
    ratio = r / p
    print(f"{opts.example}: plain {p * 1e3:.0f} ms, recorded {r * 1e3:.0f} ms "
          f"({last['cards']} card(s), {last['bytes'] / 1024:.0f} KiB) -> {ratio:.2f}x plain "
          f"(target <= {TARGET:g}x: {'ok' if ratio <= TARGET else 'MISSED'}); medians of "
          f"{opts.rounds} fresh processes each")
    return 0


if __name__ == "__main__":
    sys.exit(main())
