"""The server's log under a kernel that floods it (fake kernel, server at DEBUG so kernel text
is logged at all): every line is the server's, escaped, and capped per kernel and session."""

from __future__ import annotations

from conftest import fake_kernel_server
from helpers import client

FORGED = "x\\n2026-01-01 00:00:00,000 CRITICAL didax.main: forged"


def test_kernel_text_is_escaped_and_capped_even_at_debug(tmp_path):
    server = fake_kernel_server(tmp_path, "scripted.py", log_level="debug").start()
    try:
        with client(server) as c:
            for _ in range(3):
                code = f"log 5000 {FORGED}\nstderr 5000 {FORGED}\nprint done"
                reply, msgs = c.run(code)
                assert reply["ok"] and c.stdout(msgs) == "done\n"
    finally:
        server.stop()
    lines = server.log_text().splitlines()
    assert not [line for line in lines if line.startswith("2026-01-01") or "CRITICAL" in line[:40]]
    kernel_lines = [line for line in lines if "kernel log:" in line or "kernel stderr:" in line]
    assert kernel_lines and all("x\\n2026-01-01" in line for line in kernel_lines)
    assert len(kernel_lines) <= 3 * 2 * 50  # per kernel: at most 50 from each source
    assert sum(len(line) for line in lines) < 200_000
