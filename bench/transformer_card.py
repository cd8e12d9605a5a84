"""Record the trace cards of a playground program and write one as JSON: the big-graph
benchmark's input (by default bench/programs/transformer_grad.py, whose jitted training
step makes a card of about 2,000 equations).

    .venv/bin/python bench/transformer_card.py [--program FILE] [--out FILE] [--card N]

The program runs as the kernel runs it (file `<user>`, `import jax` is didax), with a card
size budget of --max-card-bytes (default 10 MiB: the whole 2,000-equation graph, its values
and cotangents, without contributions, heatmaps and stage programs; the kernel's default
budget of 2 MiB would show the first ~480 equations and summarise the rest). Prints the
card's size: equations, groups, top-level boxes when collapsed, JSON bytes, recording time,
notices. The card is validated against shared_schemas.TraceCard when importable.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_PROGRAM = REPO / "bench" / "programs" / "transformer_grad.py"


BENCH_BUDGET = 10 << 20  # bytes


def record(program: Path, compile_stages: bool = True,
           max_card_bytes: int = BENCH_BUDGET) -> tuple[list[dict], float]:
    """Every card of program, in order, and the wall time of running it under capture."""
    sys.path.insert(0, str(REPO / "engine" / "src"))
    import didax  # noqa: PLC0415
    import didax.numpy  # noqa: PLC0415
    from didax import viz  # noqa: PLC0415

    sys.modules.setdefault("jax", didax)
    sys.modules.setdefault("jax.numpy", didax.numpy)
    code = compile(program.read_text(), "<user>", "exec")
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()), viz.capture(
            compile=compile_stages, max_card_bytes=max_card_bytes) as cards:
        exec(code, {"__name__": "__main__"})
    return cards, time.perf_counter() - start


def count_eqns(jaxpr: dict) -> int:
    return sum(1 + sum(count_eqns(s["jaxpr"]) for s in e["subjaxprs"]) for e in jaxpr["eqns"])


def summary(card: dict) -> dict:
    """The figures the page's benchmark cares about."""
    tops = {g["id"] for g in card.get("groups", []) if g["parent"] is None}
    loose = [e for e in card["jaxpr"]["eqns"] if e.get("group") is None]
    return {"title": card["title"], "eqns": len(card["jaxpr"]["eqns"]),
            "eqns_nested": count_eqns(card["jaxpr"]), "groups": len(card.get("groups", [])),
            "top_level_boxes": len(tops) + len(loose), "bytes": len(json.dumps(card)),
            "error": card["error"],
            "trimmed": [n["message"][:90] for n in card.get("notices", [])
                        if n["kind"] == "card_trimmed"]}


def _validate(card: dict) -> None:
    sys.path.insert(0, str(REPO / "shared_schemas" / "src"))
    try:
        from shared_schemas.trace import TraceCard  # noqa: PLC0415
    except ImportError:
        return
    TraceCard.model_validate(card)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--program", type=Path, default=DEFAULT_PROGRAM)
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "out" / "transformer_card.json")
    ap.add_argument("--card", type=int, default=None, help="index (default: the largest)")
    ap.add_argument("--no-compile", action="store_true", help="skip StableHLO/HLO stages")
    ap.add_argument("--max-card-bytes", type=int, default=BENCH_BUDGET)
    args = ap.parse_args()
    cards, seconds = record(args.program, not args.no_compile, args.max_card_bytes)
    if not cards:
        print("the program made no trace card", file=sys.stderr)
        return 1
    card = cards[args.card] if args.card is not None else max(
        cards, key=lambda c: len(c["jaxpr"]["eqns"]))
    _validate(card)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(card))
    print(json.dumps({**summary(card), "record_s": round(seconds, 2), "out": str(args.out)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
