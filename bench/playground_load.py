"""Load figures for the playground server (issue 13), over real websockets:

- `load`: N concurrent sessions (8, 16, 32), each from its own client address, each making
  `runs` runs of a program at the same time: successes, p50/p95 from run_request to the
  final reply, and the server's RSS before and after;
- `idlers`: 16 hostile idlers (connected, each ran `print(1)`, then idle) beside 16 honest
  clients that run at the same moment, or one every half second: how long until each honest
  run starts (status `running`);
- `flood`: server RSS before, at the peak and after a run whose daemon thread writes
  40 × 7 MiB `stream` events to the control channel.

Distinct client addresses are loopback source addresses (127.0.N.M), since the server limits
connections and kernels per address. Used by playground_latency.py (which owns the server).

Imports: httpx, websockets.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

FLOOD = """
import json, os, threading, time
fd = int(os.environ['SBX_CTL_FD'])
line = (json.dumps({'type': 'stream', 'run_id': 'x', 'name': 'stdout',
                    'text': 'A' * (7 << 20)}) + '\\n').encode()
def flood():
    for _ in range(40):
        os.write(fd, line)
threading.Thread(target=flood, daemon=True).start()
time.sleep(3)
"""


async def wait_pool_full(url: str, timeout: float = 120.0) -> None:
    """Until every warm kernel the server keeps is ready and nothing else is alive, for half
    a second (a spawn shows in `kernels` only once its process exists)."""
    deadline = time.monotonic() + timeout
    steady = 0
    async with httpx.AsyncClient(base_url=url, timeout=5) as http:
        while time.monotonic() < deadline and steady < 5:
            health = (await http.get("/healthz")).json()
            stats = health["pool_ready"], health["kernels"], health["running"], health["queued"]
            full = stats[0] >= 1 and stats[0] == stats[1] and stats[2:] == (0, 0)
            steady = steady + 1 if full else 0
            await asyncio.sleep(0.1)


def rss_mib(pid: int | None) -> float | None:
    if pid is None:
        return None
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return None


def _pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return round(ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo), 1)


async def connect(url: str, source: str) -> Any:
    """A websocket from loopback source address `source`."""
    host, port = url.split("://", 1)[1].split(":")
    sock = socket.socket()
    sock.bind((source, 0))
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, (host, int(port)))
    return await websockets.connect(
        f"ws://{host}:{port}/api/ws", sock=sock, max_size=64 << 20, open_timeout=60
    )


class Client:
    def __init__(self, ws: Any) -> None:
        self.ws, self.n = ws, 0

    async def send(self, msg: dict[str, Any]) -> str:
        self.n += 1
        mid = f"l-{self.n}"
        await self.ws.send(json.dumps({"protocol_version": 2, "id": mid, "msg": msg}))
        return mid

    async def run(self, code: str, timeout: float = 180) -> dict[str, Any]:
        """ms to status running and to the final reply; ok or why not."""
        started = time.perf_counter()
        rid = await self.send({"type": "run_request", "code": code})
        out: dict[str, Any] = {"start_ms": None}
        while True:
            env = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
            if env.get("parent_id") != rid:
                continue
            msg, now = env["msg"], (time.perf_counter() - started) * 1000
            if msg["type"] == "status" and msg["state"] == "running" and out["start_ms"] is None:
                out["start_ms"] = now
            if msg["type"] in ("run_reply", "error"):
                ok = msg["type"] == "run_reply" and msg["ok"]
                why = None if ok else (msg.get("error") or {}).get("kind") or msg.get("code")
                return {**out, "reply_ms": now, "ok": ok, "why": why}


async def _session(
    url: str, source: str, code: str, runs: int, go: asyncio.Event, delay: float = 0.0
) -> list[dict]:
    async with await connect(url, source) as ws:
        c = Client(ws)
        await go.wait()
        await asyncio.sleep(delay)
        return [await c.run(code) for _ in range(runs)]


async def load(url: str, pid: int | None, code: str, sessions: int, runs: int) -> dict[str, Any]:
    before = rss_mib(pid)
    go = asyncio.Event()
    tasks = [
        asyncio.create_task(_session(url, f"127.0.{1 + i // 200}.{1 + i % 200}", code, runs, go))
        for i in range(sessions)
    ]
    await asyncio.sleep(0.5)
    go.set()
    done = await asyncio.gather(*tasks, return_exceptions=True)
    results = [r for d in done if isinstance(d, list) for r in d]
    failures = [r["why"] for r in results if not r["ok"]] + [
        repr(d) for d in done if isinstance(d, BaseException)
    ]
    replies = [r["reply_ms"] for r in results]
    return {
        "sessions": sessions,
        "runs": sessions * runs,
        "succeeded": sum(r["ok"] for r in results),
        "reply_p50_ms": _pct(replies, 0.5),
        "reply_p95_ms": _pct(replies, 0.95),
        "failures": failures[:5],
        "rss_before_mib": before,
        "rss_after_mib": rss_mib(pid),
    }


async def idlers(
    url: str, code: str, n_idle: int = 16, n_honest: int = 16, spacing_s: float = 0.0
) -> dict[str, Any]:
    """16 idlers (connected, each ran print(1)) and 16 honest clients that run once: all at
    the same moment (spacing 0: every one needs a kernel at once, so the last waits for the
    pool to be refilled that many times), or one every `spacing_s` seconds."""
    idle = [Client(await connect(url, f"127.0.3.{1 + i}")) for i in range(n_idle)]
    try:
        for c in idle:
            await c.run("print(1)")
        await wait_pool_full(url)  # the pool refills behind them (they hold no kernel)
        go = asyncio.Event()
        honest = [
            asyncio.create_task(_session(url, f"127.0.4.{1 + i}", code, 1, go, delay=i * spacing_s))
            for i in range(n_honest)
        ]
        await asyncio.sleep(0.5)
        go.set()
        results = [r[0] for r in await asyncio.gather(*honest)]
    finally:
        for c in idle:
            await c.ws.close()
    starts = [r["start_ms"] for r in results if r["start_ms"] is not None]
    return {
        "idlers": n_idle,
        "honest": n_honest,
        "arrival_spacing_s": spacing_s,
        "honest_ok": sum(r["ok"] for r in results),
        "start_p50_ms": _pct(starts, 0.5),
        "start_p95_ms": _pct(starts, 0.95),
        "start_max_ms": round(max(starts), 1) if starts else None,
        "all_started_within_5s": len(starts) == n_honest and max(starts) < 5000,
    }


async def flood(url: str, pid: int | None) -> dict[str, Any]:
    async with await connect(url, "127.0.5.1") as ws:
        c = Client(ws)
        await c.run("print('warm')")
        before = rss_mib(pid)
        peak = before or 0.0
        task = asyncio.create_task(c.run(FLOOD))
        while not task.done():
            peak = max(peak, rss_mib(pid) or 0.0)
            await asyncio.sleep(0.05)
        reply = task.result()
        after = rss_mib(pid)
    return {
        "reply": reply["why"] or "ok",
        "rss_before_mib": before,
        "rss_peak_mib": peak,
        "rss_after_mib": after,
    }
