"""`make bench`: every benchmark of the project in one run, with ratios against the peers
measured in the same run and the targets of ../shared/notes/performance.md.

1. ../shared/bench/anchors.py with didax beside NumPy, JAX and PyTorch (synchronous CPU
   dispatch for JAX, 1 thread everywhere): W1–W6, then a target table.
2. bench/playground_latency.py: Run -> first trace card over the real websocket (1 and 8
   sessions), kernel spawn -> ready, and load figures (bench/playground_load.py): 8/16/32
   concurrent sessions (successes, reply p50/p95, server RSS before/after), honest clients
   beside 16 idlers, server RSS under a control-channel flood.
3. The frontend perf spec in headless Chromium (2,000-equation card: overview and expand times;
   300-equation card; player frames).
4. bench/cnn_step.py: a small CNN training step in didax, JAX and PyTorch.
5. bench/recording.py: the recorder's overhead on the gallery MLP step (target <= 3x plain).

    python bench/run.py [--shared ../shared] [--skip anchors,latency,frontend,cnn,recording] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# (workload, didax mode, reference system, reference mode or "floor", max ratio)
TARGETS = [
    ("W1", "eager", "numpy", "floor", 30.0),
    ("W2", "eager", "numpy", "floor", 8.0),
    ("W3", "make_jaxpr(grad)", "jax", "make_jaxpr(grad)", 0.35),
    ("W1", "jit", "jax", "jit", 1.05),
    ("W2", "jit", "jax", "jit", 1.05),
    ("W4", "jit(grad) 1st-steady", "jax", "jit(grad) 1st-steady", 1.0),
    ("W5", "jit, blocked", "jax", "jit, blocked", 1.0),
    ("W6", "scan jit", "jax", "scan jit", 1.05),
    ("W6", "scan eager", "jax", "scan eager", 0.1),
]


def run_anchors(shared: Path, quick: bool) -> dict | None:
    anchors = shared / "bench" / "anchors.py"
    if not anchors.exists():
        print(f"skipping anchors: {anchors} not found")
        return None
    systems = "numpy,jax,didax"
    if _has_torch():
        systems += ",torch"
    out = Path(tempfile.mkstemp(suffix=".json")[1])
    cmd = [sys.executable, str(anchors), "--systems", systems, "--cpu-sync-dispatch",
           "--no-torch-compile", "--json", str(out)]
    if quick:
        cmd += ["--rounds", "2", "--target-s", "0.3", "--compile-reps", "2"]
    print("$ DIDAX_COMPILE_CACHE=0", " ".join(cmd), flush=True)
    # didax caches executables by StableHLO text; off here, so W4 times a real compile on
    # every repetition as JAX's does (a re-created jit of the same program would otherwise
    # cost ~3 ms instead of a compile).
    env = dict(os.environ, DIDAX_COMPILE_CACHE="0")
    subprocess.run(cmd, check=False, env=env)
    try:
        return json.loads(out.read_text())
    except (OSError, json.JSONDecodeError):
        return None


def _has_torch() -> bool:
    try:
        import importlib.util  # noqa: PLC0415

        return importlib.util.find_spec("torch") is not None
    except Exception:  # noqa: BLE001
        return False


def _median(rows, workload, system, mode):
    for r in rows:
        if r["workload"] == workload and r["system"] == system and r["mode"] == mode:
            return r["median_s"]
    return None


def _floor(rows, workload):
    for r in rows:
        if r["workload"] == workload and r["system"] == "numpy" and r["median_s"]:
            return r["median_s"]
    return None


def target_table(result: dict) -> list[str]:
    rows = result["rows"]
    lines = ["| workload | didax mode | didax | reference | ratio | target | met |",
             "|---|---|---:|---:|---:|---:|---|"]
    for w, mode, ref_sys, ref_mode, limit in TARGETS:
        d = _median(rows, w, "didax", mode)
        ref = _floor(rows, w) if ref_mode == "floor" else _median(rows, w, ref_sys, ref_mode)
        label = "NumPy floor" if ref_mode == "floor" else f"{ref_sys} {ref_mode}"
        if d is None or ref is None:
            lines.append(f"| {w} | {mode} | n/a | {label} | n/a | <= {limit} | n/a |")
            continue
        ratio = d / ref
        met = "yes" if ratio <= limit else "NO"
        lines.append(f"| {w} | {mode} | {_fmt(d)} | {label} {_fmt(ref)} | {ratio:.2f} | "
                     f"<= {limit} | {met} |")
    return lines


def _fmt(s: float) -> str:
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} us"


def run_latency(quick: bool) -> None:
    script = REPO / "bench" / "playground_latency.py"
    cmd = [sys.executable, str(script), "--runs", "5" if quick else "20"]
    print("$", " ".join(cmd), flush=True)
    subprocess.run(cmd, cwd=REPO, check=False)


FRONTEND_TARGETS = [
    ("2,000-equation card opens collapsed, cold (median)", "open_2000", "median_total_ms", 1000),
    ("2,000-equation card opens collapsed, cold (worst)", "open_2000", "max_total_ms", 1000),
    ("expand a group: the overview's, then 8 levels down (worst)", "expand_2000",
     "max_total_ms", 300),
    # The player (issue 11): frame-to-frame intervals of its one rAF loop (60 Hz = 16.7 ms).
    ("player at 8x, 300-eqn overview: frame interval (p95)", "player", "intervals.p95", 50),
    ("one step's motion, 300 eqns expanded: frame interval (p50)", "step_motion_expanded_300",
     "intervals.p50", 33),
]


def _big_card(e2e: Path) -> Path | None:
    """The engine's own ~2,000-equation card (bench/transformer_card.py) when it can be made."""
    script = REPO / "bench" / "transformer_card.py"
    if not script.exists():
        return None
    out = e2e / "test-results" / "transformer_card.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, str(script), "--out", str(out)], cwd=REPO, check=False)
    return out if out.exists() else None


def run_frontend_perf() -> None:
    e2e = REPO / "e2e"
    if not (e2e / "node_modules").exists():
        print("skipping frontend perf: e2e dependencies are not installed")
        return
    env = dict(os.environ, DIDAX_PERF="1")
    card = _big_card(e2e)
    if card:
        env["DIDAX_PERF_CARD"] = str(card)
    print("$ (cd e2e && DIDAX_PERF=1 npm run perf)", flush=True)
    load = os.getloadavg()
    # the perf project exists only with DIDAX_PERF=1 (playwright.config.ts)
    subprocess.run(["npm", "run", "perf"], cwd=e2e, check=False, env=env)
    load = (load[0], os.getloadavg()[0])
    perf = e2e / "test-results" / "perf.json"
    if not perf.exists():
        return
    result = json.loads(perf.read_text())
    print(json.dumps(result, indent=2))
    print(f"\n2,000-equation card: {result.get('card', '?')}; 1-minute load average "
          f"{load[0]:.1f} before, {load[1]:.1f} after (the machine's {os.cpu_count()} cores "
          "are shared: figures under load are upper bounds)\n")
    print("| page figure | measured | target | met |\n|---|---:|---:|---|")
    for label, group, key, limit in FRONTEND_TARGETS:
        value = result.get(group, {})
        for part in key.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if isinstance(value, float):
            value = round(value, 1)
        met = "n/a" if value is None else ("yes" if value <= limit else "NO")
        print(f"| {label} | {value} ms | <= {limit} ms | {met} |")


def run_cnn(quick: bool) -> None:
    cmd = [sys.executable, str(REPO / "bench" / "cnn_step.py")]
    if quick:
        cmd += ["--rounds", "2", "--target-s", "0.2"]
    print("$", " ".join(cmd), flush=True)
    subprocess.run(cmd, cwd=REPO, check=False)


def run_recording(quick: bool) -> None:
    cmd = [sys.executable, str(REPO / "bench" / "recording.py"),
           "--rounds", "3" if quick else "7"]
    print("$", " ".join(cmd), flush=True)
    subprocess.run(cmd, cwd=REPO, check=False)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=str(REPO.parent / "shared"))
    ap.add_argument("--skip", default="")
    ap.add_argument("--quick", action="store_true")
    opts = ap.parse_args(argv)
    skip = set(filter(None, opts.skip.split(",")))
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    if "anchors" not in skip:
        result = run_anchors(Path(opts.shared), opts.quick)
        if result:
            print("\n## didax against the targets (same run)\n")
            print("\n".join(target_table(result)))
    if "latency" not in skip:
        print("\n## Playground latency\n")
        run_latency(opts.quick)
    if "frontend" not in skip:
        print("\n## Frontend performance (headless Chromium)\n")
        run_frontend_perf()
    if "cnn" not in skip:
        print("\n## Small CNN training step (didax, JAX, PyTorch)\n")
        run_cnn(opts.quick)
    if "recording" not in skip:
        print("\n## Recording overhead of trace cards (gallery MLP step)\n")
        run_recording(opts.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
