"""Regression cases of issue 13, run as user programs through the real websocket against a
server in full-sandbox mode: what user code leaves behind, floods of the control channel, a
forged `run_done`, log forging, mounts and /proc, big output and a big card. Skips with the
reason where the full sandbox is unavailable (and fails as root without it)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from app.kernels.provisioner import descendants
from helpers import BACKEND, cards, client

pytestmark = pytest.mark.sandbox
REPO = str(BACKEND.parent)

FLOOD = """
import json, os, threading, time
fd = int(os.environ['SBX_CTL_FD'])
text = 'A' * (7 << 20)
{body}
def flood():
    for _ in range(40):
        os.write(fd, line)
threading.Thread(target=flood, daemon=True).start()
time.sleep({sleep})
print('returned')
"""
WHOLE_LINE = "line = (json.dumps({'type': 'stream', 'run_id': 'x', 'name': 'stdout', 'text': text}) + '\\n').encode()"
IN_PARTS = (
    "event = json.dumps({'type': 'stream', 'run_id': 'x', 'name': 'stdout', 'text': text})\n"
    "line = b''.join((json.dumps({'type': 'part', 'data': event[i:i + 65536], 'more': True})"
    " + '\\n').encode() for i in range(0, len(event), 65536))"
)


def _cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            continue
    return total / 100


def test_control_channel_floods_keep_server_memory_bounded(sandbox_server):
    with client(sandbox_server) as c:
        assert c.run("print('warm')", timeout_s=10)[0]["ok"]
        before = sandbox_server.rss_mib()
        peak = before
        for body, sleep in ((WHOLE_LINE, 0), (WHOLE_LINE, 5), (IN_PARTS, 5)):
            code = FLOOD.format(body=body, sleep=sleep)
            reply, _ = c.run(code, timeout=120, timeout_s=30)
            peak = max(peak, sandbox_server.rss_mib())
            if sleep:  # the flood happened during the run: the kernel was killed for it
                assert reply["error"]["kind"] == "output_limit", reply
                assert "flooded its control channel" in reply["error"]["message"]
            else:  # the program returned at once: the run is over, kernel and thread gone;
                # the flood may have cut into the run_done (then there is no reported result)
                kinds = ("output_limit", "kernel_crashed")
                assert reply["ok"] or reply["error"]["kind"] in kinds, reply
        assert c.run("print('after')", timeout_s=10)[0]["ok"]
    after = sandbox_server.rss_mib()
    assert peak - before < 50 and after - before < 50, (before, peak, after)


def test_nothing_a_program_leaves_behind_outlives_its_run(sandbox_server):
    code = (
        "import threading, time\n"
        "def burn():\n    while True:\n        pass\n"
        "for _ in range(3):\n    threading.Thread(target=burn, daemon=True).start()\n"
        "threading.Thread(target=time.sleep, args=(600,)).start()  # not even a daemon\n"
        "print('done')\n"
    )
    with client(sandbox_server) as c:
        reply, msgs = c.run(code, timeout_s=10)
        assert reply["ok"] and c.stdout(msgs) == "done\n"  # ended before its 10 s clock
    sandbox_server.wait_idle(2)
    kernels = descendants(sandbox_server.proc.pid)
    start = _cpu_seconds(kernels)
    time.sleep(2.0)
    burnt = _cpu_seconds(descendants(sandbox_server.proc.pid)) - start
    assert burnt < 0.5, burnt  # a burning thread would have used ~2 s


def test_a_forged_run_done_does_not_end_the_run(sandbox_server):
    with client(sandbox_server) as c:
        rid = c.next_id()
        code = (
            "import json, os, time\n"
            "fd = int(os.environ['SBX_CTL_FD'])\n"
            f"for ok in (True, False):\n"
            f"    os.write(fd, (json.dumps({{'type': 'run_done', 'run_id': {rid!r}, 'ok': ok}})"
            " + '\\n').encode())\n"
            "time.sleep(1.5)\n"
            "print('still running')\n"
        )
        reply, msgs = c.run(code, timeout_s=10)
    assert reply["run_id"] == rid
    assert reply["ok"] and c.stdout(msgs) == "still running\n"
    assert reply["duration_ms"] >= 1400


def test_user_text_never_reaches_the_log(sandbox_server):
    marker = "MARKER-7f3a"
    code = (
        "import json, os, sys\n"
        "fd = int(os.environ['SBX_CTL_FD'])\n"
        f"forged = '{marker}\\n2026-01-01 00:00:00,000 CRITICAL didax.main: forged'\n"
        "line = (json.dumps({'type': 'log', 'text': forged}) + '\\n').encode()\n"
        "for _ in range(20000):\n"
        "    os.write(fd, line)\n"
        f"os.write(2, b'{marker} on stderr\\n' * 20000)\n"
        f"print('{marker} on stdout')\n"
    )
    size = len(sandbox_server.log_text())
    with client(sandbox_server) as c:
        reply, _ = c.run(code, timeout_s=20)
        assert reply["ok"], reply["error"]
    added = sandbox_server.log_text()[size:]
    assert marker not in added and "CRITICAL" not in added
    assert len(added) < 20_000, len(added)


def test_every_writable_mount_is_capped_and_dev_is_read_only(sandbox_server):
    code = (
        "import errno, os\n"
        "for line in open('/proc/self/mountinfo'):\n"
        "    left, right = line.split(' - ')\n"
        "    point, opts = left.split()[4], left.split()[5]\n"
        "    fstype, source, sopts = right.split()\n"
        "    if 'rw' not in opts.split(','):\n"
        "        continue\n"
        "    capped = fstype == 'tmpfs' and 'size=' in sopts\n"
        "    device = fstype == 'devtmpfs' and os.path.exists(point) and not os.path.isdir(point)\n"
        "    print('RW', point, fstype, 'ok' if capped or device or fstype in ('proc', 'devpts') else 'UNCAPPED')\n"
        "n = 0\n"
        "try:\n"
        "    for i in range(100):  # files of 4 MiB: under RLIMIT_FSIZE, so the mount's cap stops it\n"
        "        with open(f'/dev/shm/fill{i}', 'wb') as f:\n"
        "            for _ in range(4):\n"
        "                f.write(b'x' * (1 << 20)); f.flush(); n += 1\n"
        "except OSError as e:\n"
        "    print('SHM_FULL', n, errno.errorcode[e.errno])\n"
        "try:\n"
        "    open('/dev/newfile', 'w')\n"
        "except OSError as e:\n"
        "    print('DEV', errno.errorcode[e.errno])\n"
    )
    with client(sandbox_server) as c:
        reply, msgs = c.run(code, timeout_s=10)
    out = c.stdout(msgs)
    assert reply["ok"], reply["error"]
    assert "UNCAPPED" not in out, out
    assert "RW /tmp tmpfs ok" in out and "RW /dev/shm tmpfs ok" in out
    assert "SHM_FULL 16 ENOSPC" in out and "DEV EROFS" in out  # 16 MiB, then full


def test_host_paths_do_not_leak_into_proc(sandbox_server):
    code = (
        "import os\n"
        "seen = []\n"
        "for pid in ['self', '1'] + [p for p in os.listdir('/proc') if p.isdigit()]:\n"
        "    for name in ('cmdline', 'environ'):\n"
        "        try:\n"
        "            seen.append(open(f'/proc/{pid}/{name}', 'rb').read().decode(errors='replace'))\n"
        "        except OSError:\n"
        "            pass\n"
        "print(repr(open('/proc/1/cmdline', 'rb').read()))\n"
        "print('\\n'.join(seen))\n"
    )
    with client(sandbox_server) as c:
        reply, msgs = c.run(code, timeout_s=10)
    out = c.stdout(msgs)
    assert reply["ok"] and "bwrap" in out
    assert REPO not in out, out[:3000]  # the repo holds the venv, engine and sandbox sources


def test_big_output_keeps_the_first_mib_and_says_so(sandbox_server):
    code = "for i in range(10):\n    print(str(i) * (1 << 20))\nprint('the end')\n"
    with client(sandbox_server) as c:
        reply, msgs = c.run(code, timeout=120, timeout_s=60)
    out = c.stdout(msgs)
    assert reply["ok"] and reply["output_truncated"] is True, reply["error"]
    assert out == "0" * (1 << 20)  # the first MiB, exactly
    details = [m["detail"] for m in msgs if m["type"] == "status" and m["detail"]]
    assert "output truncated at 1 MiB" in details[-1]
    assert c.max_frame <= 256 * 1024


def test_a_2000_equation_grad_card_is_recorded_whole(sandbox_server):
    # The recorder's budget in the kernel fits a program of this size (a transformer stack's
    # grad): all its equations are shown, nothing is trimmed, the sums are still jax.grad's.
    code = (
        "import jax\n"
        "def f(x):\n"
        "    for _ in range(2000):\n"
        "        x = x * 1.0001\n"
        "    return x\n"
        "print(jax.grad(f)(1.0))\n"
    )
    with client(sandbox_server) as c:
        if not (c.hello()["engine"] or {}).get("viz"):
            pytest.skip("the engine records no cards")
        reply, msgs = c.run(code, timeout=300, timeout_s=120)
        assert reply["ok"], reply["error"]
        (card,) = cards(msgs)
        assert len(card["jaxpr"]["eqns"]) == 2000
        assert not [n for n in card.get("notices", []) if n["kind"] == "card_trimmed"]


def test_a_13k_equation_card_streams_in_bounded_frames(sandbox_server):
    code = (
        "import jax\n"
        "def f(x):\n"
        "    for _ in range(13000):\n"
        "        x = x + 1.0\n"
        "    return x\n"
        "print(len(jax.make_jaxpr(f)(1.0).eqns))\n"
    )
    with client(sandbox_server) as c:
        if not (c.hello()["engine"] or {}).get("viz"):
            pytest.skip("the engine records no cards")
        reply, msgs = c.run(code, timeout=300, timeout_s=120)
        assert reply["ok"], reply["error"]
        assert c.stdout(msgs) == "13000\n"
        got = cards(msgs)
        assert reply["n_cards"] == len(got) == 1
        assert any(m["type"] == "trace_card_chunk" for m in msgs)
        assert c.max_frame <= 256 * 1024, c.max_frame
        card = got[0]
        shown = len(card["jaxpr"]["eqns"])
        trimmed = [n for n in card.get("notices", []) if n["kind"] == "card_trimmed"]
        assert shown == 13000 or trimmed, (shown, card.get("notices"))
        json.dumps(card)
