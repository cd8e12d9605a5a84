"""Test helpers: a real server process on a loopback port, and a websocket protocol client.

Every server message received is validated against `ServerEnvelope`, so each test also checks
that the server speaks the schema.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

from shared_schemas import ServerEnvelope

BACKEND = Path(__file__).resolve().parent.parent
FAKE_KERNELS = Path(__file__).resolve().parent / "fake_kernels"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ServerProcess:
    """`python -m app.main` on 127.0.0.1:<free port>, stopped by its pid."""

    def __init__(
        self,
        tmp: Path,
        env: dict[str, str] | None = None,
        pool_ready: int = 0,
        log_level: str = "info",
    ):
        self.port = free_port()
        self.tmp = tmp
        self.env = {
            **os.environ,
            "DIDAX_DB_PATH": str(tmp / "shares.sqlite3"),
            "DIDAX_FRONTEND_DIST": str(tmp / "dist"),
            **(env or {}),
        }
        self.pool_ready = pool_ready
        self.log_level = log_level
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = tmp / f"server-{self.port}.log"
        self.host = "127.0.0.1"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 180.0) -> ServerProcess:
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "app.main",
                    "--host",
                    self.host,
                    "--port",
                    str(self.port),
                    "--log-level",
                    self.log_level,
                ],
                cwd=BACKEND,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log.read_text()[-2000:]}")
            try:
                health = httpx.get(self.url + "/healthz", timeout=2).json()
                if health["pool_ready"] >= self.pool_ready:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"server did not become healthy: {self.log.read_text()[-2000:]}")

    def health(self) -> dict[str, Any]:
        return httpx.get(self.url + "/healthz", timeout=5).json()

    def rss_mib(self) -> float:
        """The server process's resident memory."""
        assert self.proc is not None
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise RuntimeError("no VmRSS")

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_idle(self, pool: int, timeout: float = 60.0) -> dict[str, Any]:
        """Wait until no run holds a kernel and the pool is refilled to `pool`."""
        deadline = time.monotonic() + timeout
        health = self.health()
        while time.monotonic() < deadline:
            health = self.health()
            if health["running"] == 0 and health["pool_ready"] == health["kernels"] == pool:
                break
            time.sleep(0.1)
        return health

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


class Client:
    """A protocol client over a real websocket."""

    def __init__(self, conn: ClientConnection) -> None:
        self.conn = conn
        self._n = 0
        self.max_frame = 0  # the largest frame received, in UTF-8 bytes

    def next_id(self) -> str:
        """The id the next `send` will use."""
        return f"c-{self._n + 1}"

    def send(self, msg: dict[str, Any], parent_id: str | None = None) -> str:
        self._n += 1
        mid = f"c-{self._n}"
        self.conn.send(
            json.dumps({"protocol_version": 2, "id": mid, "parent_id": parent_id, "msg": msg})
        )
        return mid

    def recv(self, timeout: float = 30.0) -> dict[str, Any]:
        text = self.conn.recv(timeout=timeout)
        self.max_frame = max(self.max_frame, len(text.encode()))
        ServerEnvelope.model_validate_json(text)  # every server frame must match the schema
        return json.loads(text)

    def hello(self) -> dict[str, Any]:
        mid = self.send({"type": "hello", "client": "pytest"})
        env = self.recv()
        assert env["parent_id"] == mid and env["msg"]["type"] == "welcome"
        return env["msg"]

    def run(self, code: str, timeout: float = 60.0, **settings: Any) -> tuple[dict, list[dict]]:
        """Send a run_request; return (run_reply msg, every message of the run)."""
        rid = self.send({"type": "run_request", "code": code, "settings": settings})
        return self.collect(rid, timeout)

    def collect(self, rid: str, timeout: float = 60.0) -> tuple[dict, list[dict]]:
        msgs = []
        deadline = time.monotonic() + timeout
        while True:
            env = self.recv(timeout=max(0.1, deadline - time.monotonic()))
            assert env["parent_id"] == rid, env
            msgs.append(env["msg"])
            if env["msg"]["type"] in ("run_reply", "error"):
                return env["msg"], msgs

    def stdout(self, msgs: list[dict]) -> str:
        return "".join(m["text"] for m in msgs if m["type"] == "stream" and m["name"] == "stdout")


def cards(msgs: list[dict]) -> list[dict]:
    """The run's trace cards, with `trace_card_chunk` transfers reassembled and validated as
    the page does (chunks of one transfer in order, joined, then the whole frame)."""
    out, parts = [], {}
    for m in msgs:
        if m["type"] == "trace_card":
            out.append(m["card"])
        elif m["type"] == "trace_card_chunk":
            got = parts.setdefault(m["transfer_id"], [])
            assert m["index"] == len(got), "chunks out of order"
            got.append(m["data"])
            if len(got) == m["count"]:
                env = ServerEnvelope.model_validate_json("".join(parts.pop(m["transfer_id"])))
                assert env.id == m["transfer_id"] and env.msg.type == "trace_card"
                out.append(env.msg.card.model_dump(mode="json"))
    assert not parts, "an unfinished chunk transfer"
    return out


@contextmanager
def client(server: ServerProcess, source: str | None = None) -> Iterator[Client]:
    """A protocol client; `source` binds a loopback source address (127.0.0.N), so tests can
    be several client addresses."""
    sock = None
    if source is not None:
        sock = socket.create_connection(("127.0.0.1", server.port), 10, (source, 0))
    url = f"ws://127.0.0.1:{server.port}/api/ws"
    with connect(url, max_size=32 << 20, sock=sock, open_timeout=30) as conn:
        yield Client(conn)
