"""Fake kernel: announces ready, then segfaults on its first run request."""

import json
import os
import signal
import sys

fd = int(os.environ["SBX_CTL_FD"])
ready = {"type": "ready", "engine": {"available": False, "detail": "fake"}, "lockdown": {}}
os.write(fd, (json.dumps(ready) + "\n").encode())
for line in sys.stdin:
    request = json.loads(line)
    out = {"type": "stream", "run_id": request["id"], "name": "stdout", "text": "about to crash\n"}
    os.write(fd, (json.dumps(out) + "\n").encode())
    os.kill(os.getpid(), signal.SIGSEGV)
