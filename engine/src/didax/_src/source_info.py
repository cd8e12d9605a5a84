"""Source locations: which line of the user's program created an equation.

Each equation records a `SourceInfo(file, line, function)` found by walking the Python stack
outward past didax's own frames. May import only the standard library.
"""

from __future__ import annotations

import os
import sys
from typing import NamedTuple


class SourceInfo(NamedTuple):
    file: str
    line: int
    function: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line} ({self.function})"


_DIDAX_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_excluded_prefixes: list[str] = [_DIDAX_DIR + os.sep]
_is_internal_cache: dict[str, bool] = {}
_EXCLUDED_NAMES = ("contextlib.py", "functools.py", "<frozen ", "runpy.py")


def register_exclusion(path: str) -> None:
    """Frames from files under `path` are never reported as user locations."""
    _excluded_prefixes.append(os.path.abspath(path))
    _is_internal_cache.clear()


def _is_internal(filename: str) -> bool:
    try:
        return _is_internal_cache[filename]
    except KeyError:
        pass
    internal = filename.startswith(tuple(_excluded_prefixes)) or filename.endswith(
        _EXCLUDED_NAMES
    )
    if not internal and filename.startswith("<frozen "):
        internal = True
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


def current() -> SourceInfo | None:
    """The user's source location for something created now."""
    f = user_frame(2)
    if f is None:
        return None
    # the qualified name (f.<locals>.<lambda>), as JAX records it
    return SourceInfo(f.f_code.co_filename, f.f_lineno, f.f_code.co_qualname)


def summarize(info: SourceInfo | None) -> str:
    if info is None:
        return "unknown"
    return f"{os.path.basename(info.file)}:{info.line} ({info.function})"
