"""Fake kernel: never announces ready and ignores SIGTERM (a wedged engine import)."""

import signal
import time

signal.signal(signal.SIGTERM, signal.SIG_IGN)
while True:
    time.sleep(1)
