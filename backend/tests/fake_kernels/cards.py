"""Fake kernel: answers each run with a status, output, one valid trace card (the shared
sample) and one invalid card, then run_done — exercising the card path before didax.viz."""

import json
import os
import sys
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[3] / "shared_schemas/examples/valid"
card = json.loads((SAMPLE / "server.trace_card.grad.json").read_text())["msg"]["card"]
fd = int(os.environ["SBX_CTL_FD"])


def send(event):
    os.write(fd, (json.dumps(event) + "\n").encode())


send({"type": "ready", "engine": {"available": True, "viz": True, "version": "fake"}})
for line in sys.stdin:
    rid = json.loads(line)["id"]
    send({"type": "status", "run_id": rid, "state": "tracing"})
    send({"type": "stream", "run_id": rid, "name": "stdout", "text": "before the card\n"})
    send({"type": "trace_card", "run_id": rid, "card": card})
    send({"type": "trace_card", "run_id": rid, "card": {**card, "jaxpr": None}})
    send({"type": "trace_card", "run_id": "someone-else", "card": card})  # forged: ignored
    send({"type": "run_done", "run_id": rid, "ok": True, "n_cards": 99})
