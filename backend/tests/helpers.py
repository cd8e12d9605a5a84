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

    def __init__(self, tmp: Path, env: dict[str, str] | None = None, pool_ready: int = 0):
        self.port = free_port()
        self.tmp = tmp
        self.env = {
            **os.environ,
            "DIDAX_DB_PATH": str(tmp / "shares.sqlite3"),
            "DIDAX_FRONTEND_DIST": str(tmp / "dist"),
            **(env or {}),
        }
        self.pool_ready = pool_ready
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = tmp / f"server-{self.port}.log"
        self.host = "127.0.0.1"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> ServerProcess:
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
                    "info",
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

    def send(self, msg: dict[str, Any], parent_id: str | None = None) -> str:
        self._n += 1
        mid = f"c-{self._n}"
        self.conn.send(
            json.dumps({"protocol_version": 2, "id": mid, "parent_id": parent_id, "msg": msg})
        )
        return mid

    def recv(self, timeout: float = 30.0) -> dict[str, Any]:
        text = self.conn.recv(timeout=timeout)
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


@contextmanager
def client(server: ServerProcess) -> Iterator[Client]:
    with connect(f"ws://127.0.0.1:{server.port}/api/ws", max_size=32 << 20) as conn:
        yield Client(conn)
