"""Fake kernel: announces ready, runs one request whose code is a tiny script, then exits.

One command per line of the code:
    sleep S              sleep S seconds
    print TEXT           a stdout stream event
    forge_done           a run_done event claiming success (as hostile user code could)
    log N TEXT           N `log` events of TEXT (`\\n` in TEXT becomes a real newline)
    stderr N TEXT        N lines of TEXT on the raw stderr fd
    card BYTES           one valid trace card padded to about BYTES of JSON (sent in parts)
Anything else is ignored. It ends with a real run_done and exits, like the real kernel.
"""

import json
import os
import sys
import time
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[3] / "shared_schemas/examples/valid"
fd = int(os.environ["SBX_CTL_FD"])
PART = 256 * 1024


def send(event):
    text = json.dumps(event, separators=(",", ":"))
    if len(text) <= PART:
        os.write(fd, (text + "\n").encode())
        return
    for start in range(0, len(text), PART):
        part = {
            "type": "part",
            "data": text[start : start + PART],
            "more": start + PART < len(text),
        }
        os.write(fd, (json.dumps(part, separators=(",", ":")) + "\n").encode())


def big_card(size):
    card = json.loads((SAMPLE / "server.trace_card.grad.json").read_text())["msg"]["card"]
    card["jaxpr"]["text"] += "\n" + "x" * max(0, size - len(json.dumps(card)))
    return card


def run(rid, code):
    for line in code.splitlines():
        cmd, _, rest = line.partition(" ")
        if cmd == "sleep":
            time.sleep(float(rest))
        elif cmd == "print":
            send({"type": "stream", "run_id": rid, "name": "stdout", "text": rest + "\n"})
        elif cmd == "forge_done":
            send({"type": "run_done", "run_id": rid, "ok": True})
        elif cmd == "log":
            n, _, text = rest.partition(" ")
            for _ in range(int(n)):
                send({"type": "log", "text": text.replace("\\n", "\n")})
        elif cmd == "stderr":
            n, _, text = rest.partition(" ")
            os.write(2, ((text + "\n") * int(n)).encode())
        elif cmd == "card":
            send({"type": "trace_card", "run_id": rid, "card": big_card(int(rest))})


send({"type": "ready", "engine": {"available": True, "viz": True, "version": "fake"}})
line = sys.stdin.readline()
if line:
    request = json.loads(line)
    send({"type": "status", "run_id": request["id"], "state": "running"})
    run(request["id"], request["code"])
    send({"type": "run_done", "run_id": request["id"], "ok": True})
