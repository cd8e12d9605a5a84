"""Fake kernel: dies before announcing ready (like an engine import that segfaults)."""

import sys

sys.stderr.write("fake kernel: crashing on start\n")
sys.exit(3)
