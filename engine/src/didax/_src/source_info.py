"""Source locations and name stacks: where in the user's program an equation was made.

Each equation records a `SourceInfo`: the innermost user frame (file, line, function), the
user's traceback — every user frame between the equation and the start of the trace that
staged it (JAX's `TracebackScope`), outermost first, as (code, instruction offset, call id)
where the call id tells two calls of one function apart — and the name stack (JAX's
`NameStack`: `named_scope`/`named_call` scopes and transformation names such as `jvp`,
`transpose`, `vmap`). Lowering turns these into StableHLO locations; the playground groups
equations by them. Also here: the overrides that let equations re-bound from an existing
jaxpr keep their origin (location, name stack, provenance tag). May import only the
standard library.
"""

from __future__ import annotations

import itertools
import os
import sys
import sysconfig
import weakref
from collections.abc import Callable, Iterator
from typing import NamedTuple

# ----------------------------------------------------------------------------------------
# Name stacks (jax/_src/source_info_util.py: Scope, Transform, NameStack)
# ----------------------------------------------------------------------------------------

_entry_ids = itertools.count(1)


class NameEntry:
    """One name stack entry: a scope (`named_scope`, `named_call`) or a transformation.

    `owner` is the call id of the user frame that pushed it (0 when none) and `where` that
    frame's (code, f_lasti) then; `label` names the transformed function (transforms only)
    and `uid` tells two pushes of one name apart. Only `name` is ever printed."""

    __slots__ = ("name", "transform", "owner", "where", "label", "uid")

    def __init__(self, name: str, transform: bool = False, label: str = ""):
        self.name, self.transform, self.label = name, transform, label
        f = user_frame(3)
        self.owner = _call_id(f) if f is not None else 0
        self.where = (f.f_code, f.f_lasti) if f is not None else None
        self.uid = next(_entry_ids)

    def __repr__(self):
        return f"{'Transform' if self.transform else 'Scope'}({self.name!r})"


class NameStack(tuple):
    """A tuple of NameEntry, printed as JAX prints its name stack: scopes joined by `/`, a
    transform wrapping the entry that follows it (`transpose(jvp(layer))/dense`, `jvp()`)."""

    __slots__ = ()

    def __add__(self, other) -> NameStack:
        return NameStack(tuple.__add__(self, other))

    def __getitem__(self, idx):
        out = tuple.__getitem__(self, idx)
        return NameStack(out) if isinstance(idx, slice) else out

    def __str__(self) -> str:
        scope: list[str] = []
        for e in reversed(self):
            if not e.transform:
                scope.append(e.name)
            elif scope:
                scope[-1] = f"{e.name}({scope[-1]})"
            else:
                scope.append(f"{e.name}()")
        return "/".join(reversed(scope))


EMPTY_NAME_STACK = NameStack()


class _Context:
    __slots__ = ("name_stack", "base", "depth")

    def __init__(self):
        self.name_stack: NameStack = EMPTY_NAME_STACK
        self.base = None  # the frame a trace started in: tracebacks stop there
        self.depth = 0  # nesting of traceback scopes


_ctx = _Context()


def current_name_stack() -> NameStack:
    return _ctx.name_stack


class set_name_stack:
    """Within the block, equations record `stack` (plus whatever is pushed inside)."""

    __slots__ = ("stack", "prev")

    def __init__(self, stack: NameStack):
        self.stack = stack

    def __enter__(self):
        self.prev = _ctx.name_stack
        _ctx.name_stack = self.stack

    def __exit__(self, *exc):
        _ctx.name_stack = self.prev
        return False


def extend_name_stack(name: str) -> set_name_stack:
    """A scope (`jax.named_scope`, `jax.named_call`) around the block."""
    return set_name_stack(_ctx.name_stack + (NameEntry(name),))


def transform_name_stack(name: str, label: str = "") -> set_name_stack:
    """A transformation (`jvp`, `transpose`, `vmap`) of `label` around the block."""
    return set_name_stack(_ctx.name_stack + (NameEntry(name, True, label),))


# ----------------------------------------------------------------------------------------
# Which frames are the user's
# ----------------------------------------------------------------------------------------

_DIDAX_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_STDLIB = [p for p in {sysconfig.get_path("stdlib"), os.path.dirname(os.__file__)} if p]
_excluded_prefixes: list[str] = [_DIDAX_DIR + os.sep, *_STDLIB]
_is_internal_cache: dict[str, bool] = {}
_EXCLUDED_NAMES = ("contextlib.py", "functools.py", "runpy.py")


def in_didax(path: str) -> bool:
    """Whether path is one of didax's own source files (by its location, not its name: a
    user's directory may well be called didax)."""
    return path.startswith(_DIDAX_DIR + os.sep)


def register_exclusion(path: str) -> None:
    """Frames from files under `path` are never reported as user locations."""
    _excluded_prefixes.append(os.path.abspath(path))
    _is_internal_cache.clear()


def _is_internal(filename: str) -> bool:
    try:
        return _is_internal_cache[filename]
    except KeyError:
        pass
    # as JAX's is_user_filename: didax and the standard library are not the user's (frozen
    # modules are, as in JAX)
    internal = filename.startswith(tuple(_excluded_prefixes)) or filename.endswith(
        _EXCLUDED_NAMES)
    _is_internal_cache[filename] = internal
    return internal


def user_frame(skip: int = 1):
    """The innermost stack frame that does not belong to didax (or None)."""
    f = sys._getframe(skip)
    while f is not None:
        if not _is_internal(f.f_code.co_filename):
            return f
        f = f.f_back
    return None


# ----------------------------------------------------------------------------------------
# Call ids and traceback scopes
# ----------------------------------------------------------------------------------------

_call_counter = itertools.count(1)
# id(frame) -> (frame, call id) while a trace is running: the frame is held so that its id
# cannot be reused by another call meanwhile; cleared when the outermost scope ends.
_calls: dict[int, tuple[object, int]] = {}


def _call_id(frame) -> int:
    hit = _calls.get(id(frame))
    if hit is not None and hit[0] is frame:
        return hit[1]
    if _ctx.depth == 0:
        return 0
    cid = next(_call_counter)
    _calls[id(frame)] = (frame, cid)
    return cid


class traceback_scope:
    """Tracebacks recorded inside stop at the caller's frame (JAX's TracebackScope): an
    equation's traceback is relative to the trace that staged it."""

    __slots__ = ("base", "prev")

    def __init__(self, base=None):
        self.base = base

    def __enter__(self):
        self.prev = _ctx.base
        _ctx.base = self.base if self.base is not None else sys._getframe(1)
        _ctx.depth += 1
        return self

    def __exit__(self, *exc):
        _ctx.base = self.prev
        _ctx.depth -= 1
        if _ctx.depth == 0:
            _calls.clear()
        return False


# ----------------------------------------------------------------------------------------
# Source infos
# ----------------------------------------------------------------------------------------


class SourceInfo(NamedTuple):
    """Where an equation was made: its innermost user frame, the user traceback (outermost
    first; entries are (code, f_lasti, call id)) and the name stack."""

    file: str
    line: int
    function: str
    traceback: tuple = ()
    name_stack: NameStack = EMPTY_NAME_STACK

    def __str__(self) -> str:
        return f"{self.file}:{self.line} ({self.function})"


# Called with [(frame, call id), ...] (innermost first) whenever a source info is taken
# from the stack; the playground's recorder reads the user's local names this way.
observers: list[Callable[[list], None]] = []


def current() -> SourceInfo | None:
    """The user's source location for something created now (None outside user code)."""
    f = sys._getframe(1)
    base = _ctx.base
    frames = []
    while f is not None and f is not base:
        if not _is_internal(f.f_code.co_filename):
            frames.append(f)
        f = f.f_back
    if not frames:
        stack = _ctx.name_stack
        return SourceInfo("", 0, "", (), stack) if stack else None
    calls = [(fr, _call_id(fr)) for fr in frames]
    if observers:
        for obs in observers:
            obs(calls)
    inner = frames[0]
    code = inner.f_code
    tb = tuple((fr.f_code, fr.f_lasti, cid) for fr, cid in reversed(calls))
    return SourceInfo(code.co_filename, inner.f_lineno, code.co_qualname, tb, _ctx.name_stack)


def current_traceback(skip: int = 1) -> tuple:
    """The whole user traceback of the caller (outermost first), ignoring trace scopes."""
    f = sys._getframe(skip + 1)
    out = []
    while f is not None:
        if not _is_internal(f.f_code.co_filename):
            out.append((f.f_code, f.f_lasti, 0))
        f = f.f_back
    return tuple(reversed(out))


_positions: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # code -> positions


def position(code, lasti: int) -> tuple[int, int, int, int]:
    """(line, column, end line, end column) of the instruction at offset lasti of code,
    as Python's `co_positions` gives them (0-based columns; missing parts are -1)."""
    table = _positions.get(code)
    if table is None:
        table = _positions[code] = list(code.co_positions())
    i = lasti // 2
    if 0 <= i < len(table):
        line, end_line, col, end_col = table[i]
        return (-1 if line is None else line, -1 if col is None else col,
                -1 if end_line is None else end_line, -1 if end_col is None else end_col)
    return (code.co_firstlineno, -1, -1, -1)


def user_frames(info: SourceInfo | None) -> Iterator[tuple[str, int, str]]:
    """(file, line, function) of every frame of info's traceback, innermost first."""
    if info is None:
        return
    for code, lasti, _ in reversed(info.traceback):
        yield code.co_filename, position(code, lasti)[0], code.co_qualname


def summarize(info: SourceInfo | None) -> str:
    if info is None or not info.file:
        return "unknown"
    return f"{os.path.basename(info.file)}:{info.line} ({info.function})"


# ----------------------------------------------------------------------------------------
# Re-binding equations of an existing jaxpr: inherited locations and provenance
# ----------------------------------------------------------------------------------------


class _SrcOverride:
    __slots__ = ("info",)

    def __init__(self):
        self.info = None


src_override = _SrcOverride()


class source_info_override:
    """While re-binding the equations of an existing jaxpr, new equations inherit the
    original user location rather than a location inside didax (the outermost override
    wins), and the name stack grows by the equation's own (JAX's `_name_stack_ctx`)."""

    __slots__ = ("info", "prev", "prev_stack")

    def __init__(self, info: SourceInfo | None):
        self.info = info

    def __enter__(self):
        self.prev = src_override.info
        self.prev_stack = _ctx.name_stack
        info = self.info
        if self.prev is None:
            src_override.info = info
        if info is not None and info.name_stack:
            _ctx.name_stack = self.prev_stack + info.name_stack

    def __exit__(self, *exc):
        src_override.info = self.prev
        _ctx.name_stack = self.prev_stack
        return False


class _TagState:
    __slots__ = ("tag",)

    def __init__(self):
        self.tag = None


tag_state = _TagState()


class tag_context:
    """Equations staged inside carry `tag` (the provenance of derived programs)."""

    __slots__ = ("tag", "prev")

    def __init__(self, tag):
        self.tag = tag

    def __enter__(self):
        self.prev = tag_state.tag
        tag_state.tag = self.tag

    def __exit__(self, *exc):
        tag_state.tag = self.prev
        return False


def current_source_info() -> SourceInfo | None:
    info = src_override.info
    if info is not None:
        stack = _ctx.name_stack
        return info if info.name_stack is stack else info._replace(name_stack=stack)
    return current()


class _RebindHook:
    """hook(vars, values): told which values re-bind which variables whenever a jaxpr is
    evaluated (the playground's recorder follows the user's names through transformed
    copies of a program this way); None when nobody listens."""

    __slots__ = ("fn",)

    def __init__(self):
        self.fn = None


rebind_hook = _RebindHook()
