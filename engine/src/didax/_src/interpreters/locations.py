"""StableHLO locations, written as JAX writes them with debug info: an op lowered from an
equation is located at `loc("jit(f)/layer/mul"(callsite("gelu"("f.py":3:11 to :18) at
callsite("dense"(...) at ...))))` — the name stack and primitive name around the user's
call stack (innermost frame first, at most 100 frames) — so XLA's op metadata carries
`op_name` and the stack frames of the Python source, and a lowered op can be traced back
to its equation.

Locations are interned as `#locN` aliases printed before the module. May import core,
source_info.
"""

from __future__ import annotations

from didax._src import source_info
from didax._src.source_info import NameStack

FRAME_LIMIT = 100  # JAX's jax_traceback_in_locations_limit default
UNKNOWN = "unknown"


def quote(s: str) -> str:
    """An MLIR string literal."""
    out = []
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif " " <= ch <= "~":
            out.append(ch)
        else:
            out.extend(f"\\{b:02X}" for b in ch.encode())
    return '"' + "".join(out) + '"'


class LocTable:
    """The location aliases of one module, and which equations each location came from."""

    def __init__(self):
        self.defs: list[str] = []
        self._ids: dict[str, str] = {}
        self._frames: dict[tuple[int, int], str] = {}
        self._chains: dict[tuple, str] = {}
        self._keep: list = []
        self.eqns: dict[str, list] = {}  # alias -> equations lowered at that location

    def intern(self, body: str) -> str:
        alias = self._ids.get(body)
        if alias is None:
            alias = self._ids[body] = f"#loc{len(self.defs) + 1}"
            self.defs.append(f"{alias} = loc({body})")
        return alias

    def frame(self, code, lasti: int) -> str:
        """`"qualname"("file":line:col to end)` for one traceback entry."""
        key = (id(code), lasti)
        alias = self._frames.get(key)
        if alias is None:
            self._keep.append(code)
            line, col, end_line, end_col = source_info.position(code, lasti)
            pos = f"{quote(code.co_filename)}:{line}:{max(col, 0)}"
            if end_col >= 0 and end_line >= 0:
                pos += f" to {end_line}:{end_col}" if end_line != line else f" to :{end_col}"
            file_loc = self.intern(pos)
            alias = self._frames[key] = self.intern(f"{quote(code.co_qualname)}({file_loc})")
        return alias

    def callsite(self, traceback: tuple) -> str | None:
        """The call chain of a traceback (outermost first), None when empty."""
        frames = traceback[-FRAME_LIMIT:]
        alias = None
        for code, lasti, _ in frames:
            f = self.frame(code, lasti)
            if alias is None:
                alias = f
                continue
            key = (alias, f)
            chained = self._chains.get(key)
            if chained is None:
                chained = self._chains[key] = self.intern(f"callsite({f} at {alias})")
            alias = chained
        return alias

    def named(self, name: str, child: str | None) -> str:
        return self.intern(quote(name) + (f"({child})" if child else ""))

    def scope(self, name_stack: NameStack | str, traceback: tuple) -> str:
        """Where code of a scope is (literals, returns): its name stack around its calls,
        `unknown` for an unnamed scope without calls."""
        chain = self.callsite(traceback)
        name = str(name_stack)
        if name:
            return self.named(name, chain)
        return chain or UNKNOWN

    def eqn(self, eqn, name_stack: NameStack, traceback: tuple, prefix: str = "") -> str:
        """The location of the ops lowered from eqn: `name_stack/primitive` around its
        calls (JAX's uncached lowerings, such as jit, add a `primitive:` name outside)."""
        prim = eqn.primitive.name
        ns = str(name_stack)
        loc = self.named(f"{ns}/{prim}" if ns else prim, self.callsite(traceback))
        if prefix:
            loc = self.named(prefix, loc)
        self.eqns.setdefault(loc, []).append(eqn)
        return loc

    def text(self) -> str:
        return "".join(d + "\n" for d in self.defs)


def loc_suffix(alias: str | None) -> str:
    return f" loc({alias})" if alias else ""
