"""Playground latency over the real websocket: Run → first trace card and Run → run_reply
(with the warm pool full before each run; then back to back, 1 and N sessions), kernel
spawn → ready, and the load figures of playground_load.py (8/16/32 concurrent sessions, honest
clients beside 16 idlers, server RSS under a control-channel flood).

    python bench/playground_latency.py [--runs 20] [--sessions 8] [--url http://127.0.0.1:8000]
                                       [--example grad-jvp-vjp] [--json-out FILE] [--no-load]

Without --url it starts its own server (`python -m app.main` on a free loopback port, the same
sandbox choice as `make run`) and stops it afterwards. Every run gets a fresh kernel (one
kernel per run), already started and warmed by the pool (didax imported, the XLA client made,
a small jit compiled); whatever the program itself compiles is compiled in every run. Every
session first makes one warm-up run (the server's and the connection's first use), then
`--runs` measured runs. `warm_pool` waits before each run until the pool is full again, which
is what a user who reads the result before running again sees; the back-to-back figures
include waiting for the pool to refill when runs come faster than kernels start. Run → first
card needs the engine's recorder (didax.viz); until the kernel reports `engine.viz` the script
says so and reports Run → run_reply only. Spawn → ready is measured with the server's own
provisioner, in process (launch a kernel, wait for its `ready` event, destroy it).

Imports: httpx, playground_load (websockets); app.* (backend) for the spawn measurement only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import playground_load

REPO = Path(__file__).resolve().parent.parent
BACKEND = REPO / "backend"


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def summary(values: list[float]) -> dict[str, Any]:
    return {
        "n": len(values),
        "p50_ms": _r(percentile(values, 0.5)),
        "p95_ms": _r(percentile(values, 0.95)),
        "max_ms": _r(max(values) if values else None),
    }


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 1)


class Session:
    """One websocket session that times its runs."""

    def __init__(self, ws: Any) -> None:
        self.ws, self.n = ws, 0

    async def send(self, msg: dict[str, Any]) -> str:
        self.n += 1
        mid = f"b-{self.n}"
        await self.ws.send(json.dumps({"protocol_version": 2, "id": mid, "msg": msg}))
        return mid

    async def hello(self) -> dict[str, Any]:
        await self.send({"type": "hello", "client": "bench"})
        return json.loads(await self.ws.recv())["msg"]

    async def run(self, code: str) -> dict[str, Any]:
        """Times (ms) from sending the run to the first card and to the run_reply."""
        started = time.perf_counter()
        rid = await self.send({"type": "run_request", "code": code})
        first_card = None
        while True:
            env = json.loads(await asyncio.wait_for(self.ws.recv(), 120))
            if env.get("parent_id") != rid:
                continue
            msg = env["msg"]
            now = (time.perf_counter() - started) * 1000
            is_card = msg["type"] == "trace_card" or (
                msg["type"] == "trace_card_chunk" and msg["index"] == 0
            )
            if is_card and first_card is None:
                first_card = now
            if msg["type"] in ("run_reply", "error"):
                ok = msg["type"] == "run_reply" and msg["ok"]
                detail = None if ok else (msg.get("error") or msg.get("message"))
                return {
                    "ok": ok,
                    "first_card_ms": first_card,
                    "reply_ms": now,
                    "n_cards": msg.get("n_cards", 0),
                    "detail": detail,
                }


async def session_runs(
    url: str, code: str, runs: int, warmed: asyncio.Queue[int], start: asyncio.Event, n: int
) -> dict[str, Any]:
    # each session from its own client address: the server limits kernels per address
    async with await playground_load.connect(url, f"127.0.2.{1 + n}") as ws:
        s = Session(ws)
        welcome = await s.hello()
        try:
            warm = await s.run(code)
        finally:
            warmed.put_nowait(1)
        await start.wait()
        results = [await s.run(code) for _ in range(runs)]
    return {"welcome": welcome, "warmup": warm, "runs": results}


async def measure(url: str, code: str, runs: int, sessions: int) -> dict[str, Any]:
    await playground_load.wait_pool_full(
        url
    )  # each figure starts from a full pool, not the last one's rest
    start, warmed = asyncio.Event(), asyncio.Queue()
    tasks = [
        asyncio.create_task(session_runs(url, code, runs, warmed, start, n))
        for n in range(sessions)
    ]
    while warmed.qsize() < sessions and not all(t.done() for t in tasks):
        await asyncio.sleep(0.05)
    start.set()  # measured runs start together, after every session's warm-up
    done = await asyncio.gather(*tasks, return_exceptions=True)
    results = [r for d in done if isinstance(d, dict) for r in d["runs"]]
    errors = [repr(d) for d in done if isinstance(d, BaseException)]
    failed = [r["detail"] for r in results if not r["ok"]]
    first = next((d for d in done if isinstance(d, dict)), None)
    return {
        "sessions": sessions,
        "runs_per_session": runs,
        "run_to_first_card": summary(
            [r["first_card_ms"] for r in results if r["first_card_ms"] is not None]
        ),
        "run_to_reply": summary([r["reply_ms"] for r in results]),
        "failed_runs": len(failed) + len(errors) * runs,
        "failure_examples": [str(x)[:300] for x in (failed[:3] + errors[:3])],
        "engine": first["welcome"].get("engine") if first else None,
        "sandbox": first["welcome"]["sandbox"]["mode"] if first else None,
    }


async def warm_pool(url: str, code: str, runs: int) -> dict[str, Any]:
    """One session; before each run the warm pool is full again (one kernel per run: every
    run is handed a fresh, already warmed kernel, so this is the hand-off a user waits for)."""
    async with await playground_load.connect(url, "127.0.6.1") as ws:
        s = Session(ws)
        await s.hello()
        await playground_load.wait_pool_full(url)
        await s.run(code)  # warm-up (the server's own caches, the page's connection)
        results = []
        for _ in range(runs):
            await playground_load.wait_pool_full(url)
            results.append(await s.run(code))
    return {
        "runs": runs,
        "run_to_first_card": summary(
            [r["first_card_ms"] for r in results if r["first_card_ms"] is not None]
        ),
        "run_to_reply": summary([r["reply_ms"] for r in results]),
        "failed_runs": sum(not r["ok"] for r in results),
    }


async def spawn_to_ready(samples: int) -> dict[str, Any]:
    """Kernel spawn → ready with the server's provisioner (no server needed)."""
    sys.path.insert(0, str(BACKEND))
    from app.config import Settings
    from app.kernels.cards import CardFramer
    from app.kernels.kernel import Kernel, KernelLimits
    from app.kernels.provisioner import choose_provisioner

    settings = Settings.from_env()
    prov, reason = choose_provisioner(settings)
    if prov is None:
        return {"error": reason}
    times = []
    for i in range(samples):
        started = time.perf_counter()
        proc = await prov.launch(settings.max_kernels - 1 - i % 2)
        limits = KernelLimits.from_settings(settings)
        kernel = Kernel(proc, 0, limits, CardFramer(settings.max_frame_bytes))
        kernel.start()
        await kernel.wait_ready(settings.spawn_timeout_s)
        times.append((time.perf_counter() - started) * 1000)
        await kernel.close()
    prov.close()
    return {"mode": prov.mode, **summary(times)}


def start_server() -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {
        **os.environ,
        "DIDAX_DB_PATH": f"/tmp/didax-bench-{port}.sqlite3",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.main", "--port", str(port), "--log-level", "warning"],
        cwd=BACKEND,
        env=env,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            if httpx.get(url + "/healthz", timeout=1).json()["pool_ready"] >= 1:
                return proc, url
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    raise SystemExit("server did not start")


def example_code(url: str, example: str) -> str:
    return httpx.get(f"{url}/api/examples/{example}", timeout=10).json()["code"]


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    proc, url = (None, args.url) if args.url else start_server()
    pid = proc.pid if proc is not None else None
    try:
        code = example_code(url, args.example)
        report: dict[str, Any] = {"example": args.example}
        report["warm_pool"] = await warm_pool(url, code, args.runs)
        report["single_session"] = await measure(url, code, args.runs, 1)
        report["concurrent"] = await measure(url, code, args.runs, args.sessions)
        report["trivial_program_single"] = await measure(url, "print(1)", args.runs, 1)
        if not args.no_load:
            report["load"] = []
            for n in (8, 16, 32):
                await playground_load.wait_pool_full(url)
                report["load"].append(await playground_load.load(url, pid, code, n, args.load_runs))
            report["idlers"] = []
            for spacing in (0.0, 0.5):
                await playground_load.wait_pool_full(url)
                report["idlers"].append(await playground_load.idlers(url, code, spacing_s=spacing))
            await playground_load.wait_pool_full(url)
            report["flood"] = await playground_load.flood(url, pid)
    finally:
        if proc is not None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(30)
    report["spawn_to_ready"] = await spawn_to_ready(args.spawn_samples)
    viz = bool((report["single_session"].get("engine") or {}).get("viz"))
    report["note"] = (
        None
        if viz
        else (
            "the kernel's engine has no didax.viz recorder yet: no trace cards, so Run → first card "
            "cannot be measured; Run → run_reply is reported instead"
        )
    )
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="an already running server (default: start one)")
    parser.add_argument("--example", default="grad-jvp-vjp")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--spawn-samples", type=int, default=5)
    parser.add_argument("--json-out", type=Path)
    parser.add_argument("--no-load", action="store_true", help="skip the load figures")
    parser.add_argument("--load-runs", type=int, default=2, help="runs per session under load")
    args = parser.parse_args()
    report = asyncio.run(_main(args))
    text = json.dumps(report, indent=2)
    print(text)
    if args.json_out:
        args.json_out.write_text(text + "\n")


if __name__ == "__main__":
    main()
