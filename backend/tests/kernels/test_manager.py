"""Kernel lifecycle with fake kernels: crash on start, hang before ready, crash during a run,
and the warm pool (spawn → ready, single use: one kernel per run, refill)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from app.config import Settings
from app.kernels.provisioner import choose_provisioner
from conftest import fake_kernel_server
from helpers import BACKEND, ServerProcess, client


def test_crash_on_start_is_a_typed_error_and_the_server_survives(tmp_path):
    server = fake_kernel_server(tmp_path, "crash_on_start.py").start()
    try:
        with client(server) as c:
            assert c.hello()["sandbox"]["mode"] == "rlimits_only"
            reply, _ = c.run("print(1)")
            assert reply["error"]["kind"] == "kernel_crashed"
            assert "exited with status 3" in reply["error"]["message"]
            assert c.run("print(1)")[0]["error"]["kind"] == "kernel_crashed"
            c.send({"type": "ping"})
            assert c.recv()["msg"]["type"] == "pong"
        assert server.health()["kernels"] == 0
    finally:
        server.stop()


def test_hang_before_ready_hits_the_spawn_timeout(tmp_path):
    server = fake_kernel_server(tmp_path, "hang.py", DIDAX_SPAWN_TIMEOUT_S="1.5").start()
    try:
        with client(server) as c:
            started = time.monotonic()
            reply, msgs = c.run("print(1)")
            assert reply["error"]["kind"] == "kernel_crashed"
            assert "no ready event" in reply["error"]["message"]
            assert 1.4 < time.monotonic() - started < 10
            assert [m["state"] for m in msgs if m["type"] == "status"][0] == "starting"
        assert server.health()["kernels"] == 0  # the SIGTERM-ignoring fake was killed
    finally:
        server.stop()


def test_crash_during_run_affects_only_that_session(tmp_path):
    server = fake_kernel_server(tmp_path, "crash_on_run.py").start()
    try:
        with client(server) as a, client(server) as b:
            reply, msgs = a.run("anything")
            assert a.stdout(msgs) == "about to crash\n"
            assert reply["error"]["kind"] == "kernel_crashed"
            assert "SIGSEGV" in reply["error"]["message"]
            b.send({"type": "ping"})
            assert b.recv()["msg"]["type"] == "pong"
            assert a.run("again")[0]["error"]["kind"] == "kernel_crashed"  # a fresh kernel
        assert server.health()["status"] == "ok"
    finally:
        server.stop()


def test_warm_pool_hands_out_ready_kernels_once(server):
    health = server.health()
    assert health["pool_ready"] >= 1
    with client(server) as a, client(server) as b:
        ra, _ = a.run("import os\nprint(os.getpid(), id(os))")
        rb, mb = b.run("import os\nprint(os.getpid(), id(os))")
        assert ra["ok"] and rb["ok"]
        assert ra["duration_ms"] < 5000
    # refilled to the pool size, and the two runs' kernels were destroyed, not pooled
    health = server.wait_idle(2)
    assert (health["pool_ready"], health["kernels"], health["running"]) == (2, 2, 0)


def test_every_run_gets_a_fresh_kernel(server):
    code = "import builtins\nprint(getattr(builtins, 'mark', None))\nbuiltins.mark = 'taken'\n"
    with client(server) as a, client(server) as b:
        assert a.stdout(a.run(code)[1]) == "None\n"
        assert a.stdout(a.run(code)[1]) == "None\n"  # same session: still a new kernel
        assert b.stdout(b.run(code)[1]) == "None\n"
        # between runs the session holds no kernel: only the pool is left
        health = server.wait_idle(2)
        assert health["running"] == 0 and health["kernels"] == health["pool_ready"]


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.1", "::"])
def test_beyond_loopback_refuses_rlimits_only(host):
    settings = Settings.from_env(host=host, sandbox="rlimits")
    prov, reason = choose_provisioner(settings)
    assert prov is None and "loopback" in reason
    assert Settings(host="127.0.0.1").loopback_only and Settings(host="::1").loopback_only
    assert not Settings(host="0.0.0.0").loopback_only


def test_rlimits_only_mode_runs_code_and_says_so(tmp_path):
    server = ServerProcess(
        tmp_path, {"DIDAX_SANDBOX": "rlimits", "DIDAX_POOL_SIZE": "1"}, pool_ready=1
    ).start()
    try:
        with client(server) as c:
            sandbox = c.hello()["sandbox"]
            assert sandbox["mode"] == "rlimits_only" and "no namespaces" in sandbox["description"]
            code = (
                "import os\ntry:\n    os.fork()\nexcept OSError as e:\n    print('DENIED', e.errno)"
            )
            reply, msgs = c.run(code)
            assert reply["ok"] and c.stdout(msgs) == "DENIED 1\n"  # seccomp still applies
    finally:
        server.stop()


def test_server_beyond_loopback_without_full_sandbox_refuses_to_run(tmp_path):
    server = ServerProcess(tmp_path, {"DIDAX_SANDBOX": "rlimits"})
    server.host = "0.0.0.0"
    server.start()
    try:
        with client(server) as c:
            sandbox = c.hello()["sandbox"]
            assert sandbox["mode"] == "unavailable" and "loopback" in sandbox["description"]
            rid = c.send({"type": "run_request", "code": "print(1)"})
            env = c.recv()
            assert env["parent_id"] == rid and env["msg"]["code"] == "sandbox_unavailable"
        assert server.health()["kernels"] == 0
    finally:
        server.stop()


def test_the_server_process_never_imports_the_engine_or_the_kernel():
    code = (
        "import sys\nfrom app.config import Settings\nfrom app.main import create_app\n"
        "create_app(Settings())\nimport app.api.ws, app.sessions, app.kernels.manager\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('didax', 'jax', 'sandbox')]\n"
        "print(bad)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=BACKEND, timeout=60
    )
    assert done.stdout.strip() == "[]", done.stderr


def test_cards_are_validated_and_forwarded_in_order(tmp_path):
    server = fake_kernel_server(tmp_path, "cards.py").start()
    try:
        with client(server) as c:
            rid = c.send({"type": "run_request", "code": "x"})
            msgs = []
            while not msgs or msgs[-1]["type"] != "run_reply":
                env = c.recv()
                assert env["parent_id"] == rid  # the forged card of another run never shows
                msgs.append(env["msg"])
    finally:
        server.stop()
    kinds = [m["type"] for m in msgs]
    kinds = kinds[1:]  # msgs[0]: status "starting" (no warm pool here)
    assert kinds == ["status", "stream", "trace_card", "error", "status", "run_reply"], kinds
    assert msgs[0]["state"] == "starting" and msgs[1]["state"] == "tracing"
    assert msgs[3]["card"]["title"] == "grad(loss)" and msgs[3]["run_id"] == rid
    assert msgs[4]["code"] == "invalid_card" and "jaxpr" in msgs[4]["detail"]
    assert msgs[5]["state"] == "done"
    assert msgs[6]["ok"] and msgs[6]["n_cards"] == 1  # counted by the server, not the kernel
