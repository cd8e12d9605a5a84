"""Run one user program inside the kernel and describe its outcome.

Holds: the `jax` -> `didax` meta-path alias, the control channel writer (long events in
`part`s, the final event), stdout/stderr redirection into `stream` events (the two interleaved
in program order, capped at the run's output allowance: the first part is kept), JSON
sanitising of trace cards, and the conversion of an exception into a RunError dict (traceback
frames, the user's line; a missing module names what the kernel has).

Imports: the standard library and sandbox.plots; the engine is reached through `engine.Engine`.
"""

from __future__ import annotations

import builtins
import contextlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import io
import json
import linecache
import math
import os
import sys
import threading
import time
import traceback
from typing import Any

from sandbox import plots

USER_FILE = "<user>"
MAX_FRAMES = 60
MAX_MESSAGE_CHARS = 4000
MAX_LINE_CHARS = 400
PART_CHARS = 256 * 1024  # JSON escaping at most doubles it: every control line stays < 1 MiB
DEFAULT_MAX_OUTPUT = 1 << 20
STREAM_PIECE_CHARS = 32 * 1024


class Channel:
    """Newline-delimited JSON events to the server over the control fd (thread-safe).

    The server caps every line (`PART_CHARS` keeps each one well under it): an event whose JSON
    is longer goes out as consecutive `part` events whose `data` concatenate to its JSON text.
    """

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._lock = threading.Lock()

    def send(self, event: dict[str, Any]) -> int:
        """Send one event; returns the size of its JSON text."""
        return self.send_text(json.dumps(event, allow_nan=False, separators=(",", ":")))

    def send_text(self, text: str) -> int:
        """Send an event already serialised (ASCII JSON, as `json.dumps` makes it)."""
        with self._lock:
            self._write_event(text)
        return len(text)

    def send_final(self, event: dict[str, Any]) -> None:
        """Send the run's last event and end the process while still holding the channel, so
        no thread the program left behind can write after it (the server ends the run when
        the process exits, not on this event)."""
        text = json.dumps(event, allow_nan=False, separators=(",", ":"))
        self._lock.acquire()
        try:
            self._write_event(text)
        finally:
            for stream in (sys.__stdout__, sys.__stderr__):
                with contextlib.suppress(Exception):
                    stream.flush()
            os._exit(0)

    def _write_event(self, text: str) -> None:
        if len(text) <= PART_CHARS:
            self._write((text + "\n").encode())
            return
        for start in range(0, len(text), PART_CHARS):
            piece = text[start : start + PART_CHARS]
            more = start + PART_CHARS < len(text)
            part = {"type": "part", "data": piece, "more": more}
            self._write((json.dumps(part, separators=(",", ":")) + "\n").encode())

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]


class OutputBudget:
    """What is left of the run's stdout+stderr allowance (`max_output_bytes`), shared by both
    streams; past it the program's output is dropped and the server is told once."""

    def __init__(self, channel: Channel, run_id: str, limit: int) -> None:
        self.channel, self.run_id, self.left = channel, run_id, limit
        self.truncated = False

    def take(self, text: str) -> str:
        """The part of `text` that still fits (UTF-8 bytes, cut on a character boundary)."""
        if self.truncated:
            return ""
        data = text.encode("utf-8")
        if len(data) <= self.left:
            self.left -= len(data)
            return text
        kept = data[: self.left].decode("utf-8", "ignore")
        self.left, self.truncated = 0, True
        return kept

    def announce(self) -> None:
        self.channel.send({"type": "output_truncated", "run_id": self.run_id})


class CtlStream(io.TextIOBase):
    """A text stream whose lines become `stream` events of the current run.

    stdout and stderr are each other's `peer`: writing to one first flushes what the other
    holds, so the page receives the two streams interleaved as the program wrote them."""

    def __init__(self, channel: Channel, run_id: str, name: str, budget: OutputBudget) -> None:
        self._channel, self._run_id, self._name = channel, run_id, name
        self._budget = budget
        self._buf: list[str] = []
        self._size = 0
        self.peer: CtlStream | None = None

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if self._budget.truncated:
            return len(text)
        if self.peer is not None and self.peer._buf:
            self.peer.flush()
        self._buf.append(text)
        self._size += len(text)
        if "\n" in text or self._size >= 4096:
            self.flush()
        return len(text)

    def flush(self) -> None:
        if not self._buf:
            return
        text, self._buf, self._size = "".join(self._buf), [], 0
        # A lone surrogate cannot travel as UTF-8: it becomes U+FFFD.
        text = text.encode("utf-8", "replace").decode("utf-8")
        was_truncated = self._budget.truncated
        kept = self._budget.take(text)
        for start in range(0, len(kept), STREAM_PIECE_CHARS):  # small events, never parts
            piece = kept[start : start + STREAM_PIECE_CHARS]
            self._channel.send(
                {"type": "stream", "run_id": self._run_id, "name": self._name, "text": piece}
            )
        if self._budget.truncated and not was_truncated:
            self._budget.announce()


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, module: Any) -> None:
        self._module = module
        self._spec = getattr(module, "__spec__", None)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> Any:
        return self._module

    def exec_module(self, module: Any) -> None:
        # The import system stamped the alias spec on the real module: put didax's back.
        module.__spec__ = self._spec


class JaxAlias(importlib.abc.MetaPathFinder):
    """Resolve `jax` and `jax.<sub>` to `didax` and `didax.<sub>` (same module objects)."""

    def __init__(self, target: str = "didax") -> None:
        self.target = target

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != "jax" and not fullname.startswith("jax."):
            return None
        real = self.target + fullname[3:]
        module = importlib.import_module(real)
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(module))


def install_alias(target: str = "didax") -> None:
    """Put the alias first on sys.meta_path so a real `jax` on the path is never found."""
    if not any(isinstance(f, JaxAlias) for f in sys.meta_path):
        sys.meta_path.insert(0, JaxAlias(target))


def sanitize(node: Any, in_list: bool = False) -> Any:
    """Make a card JSON-safe: non-finite floats become "nan"/"inf"/"-inf" in lists, else null."""
    if isinstance(node, float) and not math.isfinite(node):
        if not in_list:
            return None
        return "nan" if math.isnan(node) else ("inf" if node > 0 else "-inf")
    if isinstance(node, dict):
        return {str(k): sanitize(v) for k, v in node.items()}
    if isinstance(node, list | tuple):
        return [sanitize(v, in_list=True) for v in node]
    return node


def _frames(exc: BaseException, lines: list[str]) -> list[dict[str, Any]]:
    here = os.path.abspath(__file__)
    out = []
    for fs in traceback.extract_tb(exc.__traceback__):
        if os.path.abspath(fs.filename) == here:
            continue
        user = fs.filename == USER_FILE
        line = fs.line
        if user and fs.lineno and 0 < fs.lineno <= len(lines):
            line = lines[fs.lineno - 1].strip()
        out.append(
            {
                "filename": fs.filename,
                "lineno": fs.lineno or 0,
                "name": fs.name,
                "line": (line or "")[:MAX_LINE_CHARS] or None,
                "user": user,
            }
        )
    return out[-MAX_FRAMES:]


def _exc_type(exc: BaseException) -> str:
    cls = type(exc)
    mod = cls.__module__
    return cls.__qualname__ if mod in ("builtins", "__main__") else f"{mod}.{cls.__qualname__}"


def describe_error(exc: BaseException, lines: list[str]) -> dict[str, Any]:
    """A RunError dict for an exception raised by (or while compiling) the user's program."""
    frames = _frames(exc, lines)
    user_frames = [f for f in frames if f["user"]]
    user_line = user_frames[-1]["lineno"] if user_frames else None
    kind = "exception"
    if isinstance(exc, SyntaxError) and exc.filename == USER_FILE:
        kind, user_line = "syntax", exc.lineno
    elif isinstance(exc, MemoryError):
        kind = "memory"
    elif isinstance(exc, KeyboardInterrupt):
        kind = "cancelled"
    message = str(exc) if not isinstance(exc, SyntaxError) else (exc.msg or str(exc))
    if isinstance(exc, ModuleNotFoundError):
        message += missing_module_hint(exc.name or "")
    return {
        "kind": kind,
        "exc_type": _exc_type(exc),
        "message": message[:MAX_MESSAGE_CHARS],
        "traceback": frames,
        "user_line": user_line,
    }


# Packages a person may import, as (import name, how the hint names it); the hint lists the
# ones this kernel has (scipy, for one, only where the kernel venv holds it).
USER_PACKAGES = (
    ("didax", "jax (didax)"),
    ("numpy", "numpy"),
    ("matplotlib", "matplotlib"),
    ("scipy", "scipy"),
    ("ml_dtypes", "ml_dtypes"),
    ("PIL", "PIL (Pillow)"),
)


def available_packages() -> list[str]:
    """The user-facing packages importable in this kernel, besides the standard library."""
    found = []
    for name, label in USER_PACKAGES:
        try:
            present = name in sys.modules or importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            present = False
        if present:
            found.append(label)
    return found


def missing_module_hint(name: str) -> str:
    """What to say after "No module named ...": what the kernel does have."""
    top = name.split(".")[0]
    if top in ("jax", "didax") and "." in name:
        sub = "jax" + name[len(top) :]
        return (
            f". didax, the JAX implementation this playground runs, has no module {sub}"
            " (see the examples menu for what it covers)"
        )
    have = available_packages()
    listed = (
        ", ".join(have) + " and the Python standard library" if have else "the standard library"
    )
    return f". This playground cannot install packages; its kernel has {listed}"


def _exit_is_success(exc: SystemExit) -> bool:
    return exc.code is None or exc.code == 0


def execute(code: str, capture: Any, lines: list[str]) -> dict[str, Any] | None:
    """Compile and run `code` with fresh globals inside `capture`; None on success."""
    linecache.cache[USER_FILE] = (len(code), None, code.splitlines(True), USER_FILE)
    try:
        compiled = compile(code, USER_FILE, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        return describe_error(exc, lines)
    user_globals: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins}
    try:
        with capture:
            exec(compiled, user_globals)
    except SystemExit as exc:
        if not _exit_is_success(exc):
            return describe_error(exc, lines)
    except BaseException as exc:  # noqa: BLE001 - the user's program may raise anything
        return describe_error(exc, lines)
    return None


def run_request(request: dict[str, Any], channel: Channel, engine: Any) -> dict[str, Any]:
    """Run one `run` request; returns the `run_done` event (sent by the caller)."""
    run_id = str(request.get("id"))
    settings = request.get("settings") or {}
    code = str(request.get("code", ""))
    lines = code.splitlines()
    limits = request.get("limits") or {}
    budget = OutputBudget(channel, run_id, int(limits.get("max_output_bytes", DEFAULT_MAX_OUTPUT)))
    out = CtlStream(channel, run_id, "stdout", budget)
    err = CtlStream(channel, run_id, "stderr", budget)
    out.peer, err.peer = err, out
    plots.prepare()
    saved = sys.stdout, sys.stderr, sys.stdin
    sys.stdout, sys.stderr, sys.stdin = out, err, io.StringIO()
    started = time.monotonic()
    sink = engine.card_sink(channel, run_id, limits, out, err)
    try:
        engine.configure(settings)
        channel.send({"type": "status", "run_id": run_id, "state": "running"})
        # Figures still open at the end (even of a failed run) show before the traceback.
        with plots.Display(channel, run_id, (out, err)):
            error = execute(code, engine.capture(settings, sink), lines)
    finally:
        for stream in (out, err):
            stream.flush()
        sink.flush_updates()
        sys.stdout, sys.stderr, sys.stdin = saved
    return {
        "type": "run_done",
        "run_id": run_id,
        "ok": error is None,
        "error": error,
        "n_cards": sink.count,
        "duration_ms": (time.monotonic() - started) * 1000,
    }
