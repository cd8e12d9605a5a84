"""The compiled stages of a card (StableHLO, optimized HLO, XLA's cost analysis) and their
row links (Stage.rows): each op row of either text linked to the user's source line, the
primal equation it was lowered from and its name-stack op name, so the page never parses
the texts.

- StableHLO: the text shown is MLIR's readable form without locations (JAX's default
  `as_text()`); the same module printed with locations has the same rows, and each row's
  location is matched against the lowering's own record of which equation emitted it.
- Optimized HLO: each instruction's metadata (`op_name`, `stack_frame_id` into the
  module's FileLocations / StackFrames tables) gives the line; the op name and innermost
  frame find the equation. What XLA leaves without a user frame (fused constants and
  parameters, reduction regions, `;`-merged metadata, dots it re-emitted) is placed
  through the module's data flow.
- Ops of private functions called from library code only take their call's link.

May import core, pjit, xla_backend, viz.jaxpr_data.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from didax._src import core
from didax._src.viz.jaxpr_data import is_user_file

_ALIAS = re.compile(r"#loc\d*")
_DEF = re.compile(r"^(#loc\d*) = loc\((.*)\)$")
_OP_LOC = re.compile(r" loc\((#loc\d*|unknown|\".*\")\)\s*(\{)?$")


def compile_stages(primal, name: str, eqn_id: Callable, arg_names=None,
                   result_infos=None) -> list[dict]:
    """The stablehlo, hlo and cost_analysis stages of primal, compiled as `jit(name)`
    (named as the user's own jit names its module, so XLA compiles it once for both)."""
    from didax._src import pjit, xla_backend  # noqa: PLC0415

    n = len(primal.out_avals)
    infos = result_infos or (["result"] if n == 1 else [f"result[{i}]" for i in range(n)])
    exe = pjit.compile_closed_jaxpr(primal, name, keep_unused=False, result_infos=infos,
                                    arg_names=arg_names)
    index = LocIndex(exe.locs, eqn_id)
    try:
        text = xla_backend.pretty_text(exe.text)
        rows = stablehlo_rows(text, xla_backend.pretty_text(exe.text, debug_info=True), index)
    except Exception:  # noqa: BLE001 - the generic form is still valid StableHLO
        text, rows = exe.text, []
    hlo = exe.exe.hlo_modules()[0].to_string()
    ca = exe.exe.cost_analysis()
    ca = dict(ca[0] if isinstance(ca, list) else ca)
    cost = {"flops": float(ca.get("flops", 0.0)),
            "transcendentals": float(ca.get("transcendentals", 0.0)),
            "bytes_accessed": float(ca.get("bytes accessed", 0.0))}
    return [_stage("stablehlo", "StableHLO (lowered)", text, "mlir", rows=rows),
            _stage("hlo", "Optimized HLO (after XLA passes)", hlo, "hlo",
                   rows=hlo_rows(hlo, index)),
            _stage("cost_analysis", "XLA cost analysis",
                   json.dumps(ca, indent=1, sort_keys=True), "json", cost)]


def _stage(name, title, text, language, cost=None, rows=()) -> dict:
    return {"name": name, "title": title, "language": language, "text": text,
            "jaxpr": None, "cost": cost, "rows": list(rows)}


_RECENT: dict[str, tuple] = {}  # card id -> (primal ClosedJaxpr, IdMaker), last few cards


def remember(card_id: str, primal, ids) -> None:
    """Keeps a card's program and ids while its stages may still be added (compositions)."""
    while len(_RECENT) >= 4:
        _RECENT.pop(next(iter(_RECENT)))
    _RECENT[card_id] = (primal, ids)


def source_index(card: dict) -> dict[tuple, str]:
    """The card's equations by their source position (innermost frame: code and instruction,
    then primitive): how an op of a program traced apart from the card's (the outer jit of a
    composition, a jit body) finds the equation it corresponds to. The last equation at a
    position stands for it (`x @ w + b`'s add, not its broadcast)."""
    primal, ids = _RECENT.get(card.get("card_id"), (None, None))
    out: dict[tuple, str] = {}
    if primal is None:
        return out
    stack = [primal.jaxpr]
    while stack:
        for e in stack.pop().eqns:
            eid = ids.known_eqn(e)
            tb = e.source_info.traceback if e.source_info is not None else ()
            if eid is not None and tb:
                out[(tb[-1][0], tb[-1][1])] = eid
                out[(tb[-1][0], tb[-1][1], e.primitive.name)] = eid
            stack.extend(core.jaxprs_in_params(e.params))
    return out


def by_source(index: dict[tuple, str], eqn) -> str | None:
    info = eqn.source_info
    if not index or info is None or not info.traceback:
        return None
    code, lasti, _ = info.traceback[-1]
    return index.get((code, lasti, eqn.primitive.name)) or index.get((code, lasti))


# ----------------------------------------------------------------------------------------
# Locations as data
# ----------------------------------------------------------------------------------------


def expand(alias_or_body: str, defs: dict[str, str], memo: dict[str, str]) -> str:
    """A location with every `#locN` alias replaced by its definition."""
    def sub(m):
        a = m.group(0)
        out = memo.get(a)
        if out is None:
            body = defs.get(a)
            out = memo[a] = "unknown" if body is None else expand(body, defs, memo)
        return out
    if alias_or_body in defs:
        return sub(_ALIAS.match(alias_or_body))
    return _ALIAS.sub(sub, alias_or_body)


def parse_loc(s: str) -> tuple[str | None, tuple | None]:
    """(op name, innermost frame (file, line, col, end line, end col)) of an expanded
    location: names are read outside in (a `prim:` name yields to the one inside it), the
    frame by following names inward and callsites to their callee."""
    name, i = None, 0
    while True:
        if s.startswith("callsite(", i):
            i += len("callsite(")
            continue
        if not s.startswith('"', i):
            return name, None
        text, j = _string(s, i)
        if s.startswith(":", j):
            return name, (text, *_position(s, j))
        if s.startswith("(", j):
            if name is None or name.endswith(":"):
                name = text
            i = j + 1
            continue
        return name if name is not None and not name.endswith(":") else text, None


def _string(s: str, i: int) -> tuple[str, int]:
    j, out = i + 1, []
    while s[j] != '"':
        if s[j] == "\\":
            out.append(s[j + 1])
            j += 2
        else:
            out.append(s[j])
            j += 1
    return "".join(out), j + 1


def _position(s: str, j: int) -> tuple[int, int, int, int]:
    m = re.match(r":(\d+):(\d+)(?: to (\d*):(\d+))?", s[j:])
    if m is None:
        return (0, 0, -1, -1)
    line, col = int(m.group(1)), int(m.group(2))
    end_line = int(m.group(3)) if m.group(3) else (line if m.group(4) else -1)
    end_col = int(m.group(4)) if m.group(4) else -1
    return (line, col, end_line, end_col)


class LocIndex:
    """The lowering's locations, keyed the ways a printed location can be found again."""

    def __init__(self, locs, eqn_id: Callable):
        self.by_loc: dict[str, str | None] = {}
        self.by_meta: dict[tuple, str | None] = {}
        self.by_name: dict[str, dict[int, str | None]] = {}  # op name -> {line: eqn}
        self.by_prim: dict[tuple, dict[int, str | None]] = {}  # (prim, shape) -> same
        if locs is None:
            return
        defs = dict(m.groups() for m in map(_DEF.match, locs.text().splitlines()) if m)
        memo: dict[str, str] = {}
        for alias, eqns in locs.eqns.items():
            full = expand(alias, defs, memo)
            eid = next((e for e in map(eqn_id, eqns) if e is not None), None)
            self.by_loc.setdefault(full, eid)
            op_name, frame = parse_loc(full)
            self.by_meta.setdefault((op_name, frame), eid)
            self.by_meta.setdefault((op_name, frame and frame[:2]), eid)
            if frame is not None and is_user_file(frame[0]):
                self.by_name.setdefault(op_name, {}).setdefault(frame[1], eid)
                for e in eqns:
                    key = (e.primitive.name, _shape(e))
                    self.by_prim.setdefault(key, {}).setdefault(frame[1], eid)

    def lookup(self, op_name: str, frame) -> str | None:
        """The equation of an HLO instruction; XLA prefixes the ops it inlined from a
        called function with the call's name (`jit(f)/jit(h)/exp` for h's `exp`), and may
        merge stack frames of one line (then file and line decide)."""
        parts = op_name.split("/")
        for key in (frame, frame and frame[:2]):
            for i in range(len(parts)):
                eid = self.by_meta.get(("/".join(parts[i:]), key))
                if eid is not None:
                    return eid
        return None


    def candidates(self, op_name: str) -> dict[int, str | None]:
        """{user line: equation} of every op located under op_name (or a `;`-merged part
        of it, or its suffix after a call XLA inlined): what an op whose stack frame XLA
        dropped may have come from."""
        out: dict[int, str | None] = {}
        for part in op_name.split(";"):
            parts = part.split("/")
            for i in range(len(parts)):
                found = self.by_name.get("/".join(parts[i:]))
                if found:
                    for line, eid in found.items():
                        out.setdefault(line, eid)
                    break
        return out


def _shape(eqn) -> tuple | None:
    aval = eqn.outvars[0].aval if eqn.outvars else None
    shape = getattr(aval, "shape", None)
    return tuple(shape) if shape is not None else None


def _link(row: int, full: str, eqn: str | None) -> dict | None:
    op_name, frame = parse_loc(full)
    line = frame[1] if frame is not None and is_user_file(frame[0]) else None
    if op_name is None and line is None and eqn is None:
        return None
    return {"row": row, "line": line, "eqn_id": eqn, "op_name": op_name}


# ----------------------------------------------------------------------------------------
# StableHLO rows
# ----------------------------------------------------------------------------------------


def stablehlo_rows(text: str, debug_text: str, index: LocIndex) -> list[dict]:
    """Row links of `text` read from the same module printed with locations."""
    defs, body = {}, []
    for line in debug_text.splitlines():
        m = _DEF.match(line)
        if m:
            defs[m.group(1)] = m.group(2)
        else:
            body.append(line)
    shown = text.splitlines()
    if len(body) != len(shown):
        return []
    memo: dict[str, str] = {}
    rows = []
    for row, line in enumerate(body):
        m = _OP_LOC.search(line)
        if m is None or line.lstrip().startswith(("func.func", "module")):
            continue
        full = expand(m.group(1), defs, memo)
        link = _link(row, full, index.by_loc.get(full))
        if link is not None:
            rows.append(link)
    rows = sorted(rows + _region_headers(body, {r["row"]: r for r in rows}),
                  key=lambda r: r["row"])
    _constants_to_users(body, rows)
    _private_bodies_to_calls(body, rows)
    return rows


_FUNC = re.compile(r"^\s*func\.func (?:private|public) @([\w.$-]+)\(")
_CALL = re.compile(r"\bcall @([\w.$-]+)\(")


def _private_bodies_to_calls(body: list[str], rows: list[dict]) -> None:
    """Ops of a function called from library code only (a library's jitted helper, as
    `jax.nn.relu`) carry no user frame: they take the line and equation of the op that
    calls the function (`call @relu(...)`), the user's line that applied it."""
    func_of, calls = [], {}
    current = None
    for row, line in enumerate(body):
        m = _FUNC.match(line)
        current = m.group(1) if m else current
        func_of.append(current)
        c = _CALL.search(line)
        if c:
            calls.setdefault(c.group(1), row)
    by_row = {r["row"]: r for r in rows}
    for _ in range(4):  # helpers called from helpers
        for r in rows:
            call = by_row.get(calls.get(func_of[r["row"]], -1))
            if r["line"] is None and call is not None and call["line"] is not None:
                r["line"], r["eqn_id"] = call["line"], r["eqn_id"] or call["eqn_id"]


def _region_headers(body: list[str], by_row: dict[int, dict]) -> list[dict]:
    """An op with regions prints its location on its closing line (`} loc(...)`): its
    header row (`%0:2 = stablehlo.while(...)`) gets that row's link too."""
    out = []
    for row, line in enumerate(body):
        if row in by_row or not re.match(r"^\s*%[\w:#.]+ = ", line):
            continue
        indent = len(line) - len(line.lstrip())
        for j in range(row + 1, len(body)):
            other = body[j]
            if len(other) - len(other.lstrip()) == indent and j in by_row:
                out.append(dict(by_row[j], row=row))
                break
            if len(other) - len(other.lstrip()) < indent:
                break
    return out


_CONST = re.compile(r"^\s*(%[\w.]+) = stablehlo\.constant ")


def _constants_to_users(body: list[str], rows: list[dict]) -> None:
    """A literal's constant is located at its function (as JAX locates it); its row links
    to the line and equation of the first op that uses it instead."""
    by_row = {r["row"]: r for r in rows}
    for r in rows:
        m = _CONST.match(body[r["row"]]) if r["eqn_id"] is None else None
        if m is None:
            continue
        use = re.compile(re.escape(m.group(1)) + r"\b")
        for j in range(r["row"] + 1, min(r["row"] + 40, len(body))):
            if use.search(body[j]):
                user = by_row.get(j)
                if user is not None and (user["eqn_id"] is not None or user["line"]):
                    r["line"], r["eqn_id"] = user["line"], user["eqn_id"]
                break


# ----------------------------------------------------------------------------------------
# Optimized HLO rows
# ----------------------------------------------------------------------------------------

_META = re.compile(r'metadata=\{op_name="((?:[^"\\]|\\.)*)"(?: stack_frame_id=(\d+))?'
                   r'(?: source_file="((?:[^"\\]|\\.)*)" source_line=(\d+))?')
_TABLE_ROW = re.compile(r"^(\d+) (.*)$")
_FIELD = re.compile(r"(\w+)=(-?\d+)")


def _tables(hlo: str) -> dict[str, dict[int, str]]:
    """FileNames / FunctionNames / FileLocations / StackFrames of an HLO module's text."""
    tables: dict[str, dict[int, str]] = {}
    current = None
    for line in hlo.splitlines():
        if line in ("FileNames", "FunctionNames", "FileLocations", "StackFrames"):
            current = tables.setdefault(line, {})
        elif current is not None and (m := _TABLE_ROW.match(line)):
            current[int(m.group(1))] = m.group(2)
        elif not line.strip() or line.startswith(("%", "ENTRY", "HloModule")):
            current = None if line.strip() else current
    return tables


def _frame(tables, frame_id: int) -> tuple | None:
    """(file, line, col, end line, end col) of a stack frame's own location."""
    try:
        frame = dict(_FIELD.findall(tables["StackFrames"][frame_id]))
        loc = dict(_FIELD.findall(tables["FileLocations"][int(frame["file_location_id"])]))
        file = json.loads(tables["FileNames"][int(loc["file_name_id"])])
    except (KeyError, ValueError):
        return None
    return (file, int(loc["line"]), int(loc["column"]), int(loc["end_line"]),
            int(loc["end_column"]))


def hlo_rows(hlo: str, index: LocIndex) -> list[dict]:
    """Row links of an optimized HLO module's instructions: through their op metadata,
    then, for what XLA left without a user frame (fused constants and parameters,
    reduction regions, `;`-merged ops, rewritten dots, bitcasts of arguments), through
    the data flow (`_infer`). Parameters of the entry computation keep only their
    argument's name."""
    tables = _tables(hlo)
    module = _parse_hlo(hlo)
    for ins in module:
        ins.link = _from_metadata(ins, tables, index)
    for callers in (False, True):
        for _ in range(12):  # each pass reaches one step further along the data flow
            if not sum([_infer(ins, index, callers) for ins in module]):
                break
    return [ins.link for ins in module if ins.link is not None]


class _Instr:
    """One HLO instruction: its row and text, operands and users (in its computation),
    the instructions calling its computation when it is a parameter, the root of the
    computation it calls (fusions), its link."""

    __slots__ = ("row", "text", "entry", "operands", "users", "param", "callers", "root",
                 "link", "opcode", "shape")

    def __init__(self, row: int, text: str, entry: bool):
        self.row, self.text, self.entry = row, text, entry
        self.operands: list[_Instr] = []
        self.users: list[_Instr] = []
        self.callers: list[_Instr] = []
        self.root: _Instr | None = None
        m = _TYPE_OP.search(text)
        self.opcode = m.group(2) if m else None
        self.shape = tuple(int(d) for d in m.group(1).split(",") if d) if m else None
        p = re.search(r" parameter\((\d+)\)", text.split(", metadata=")[0])
        self.param = int(p.group(1)) if p else None
        self.link: dict | None = None


_COMP = re.compile(r"^(ENTRY )?(%[\w.\-]+) \(.*\{$")
_INSTR = re.compile(r"^\s+(ROOT )?(%[\w.\-]+) = ")
_TYPE_OP = re.compile(r" = \w+\[([\d,]*)\](?:\{[^}]*\})? ([\w-]+)\(")
_REF = re.compile(r"%[\w.\-]+")


def _parse_hlo(hlo: str) -> list[_Instr]:
    """The module's instructions in row order, wired to operands, users, callers and
    called roots (HLO names are unique in a module)."""
    by_name: dict[str, _Instr] = {}
    comps: dict[str, list] = {}  # computation -> [root, parameters...]
    comp = None
    for row, line in enumerate(hlo.splitlines()):
        m = _COMP.match(line)
        if m:
            comp, entry = comps.setdefault(m.group(2), [None]), bool(m.group(1))
            continue
        m = _INSTR.match(line) if comp is not None else None
        if m:
            ins = by_name[m.group(2)] = _Instr(row, line, entry)
            if m.group(1):
                comp[0] = ins
            if ins.param is not None or m.group(1):
                comp.append(ins)
    for name, ins in by_name.items():
        for ref in _REF.findall(ins.text.split(", metadata=")[0]):
            if ref in comps:
                ins.root = ins.root or comps[ref][0]
                for p in dict.fromkeys(comps[ref][1:]):
                    p.callers.append(ins)
            elif ref in by_name and ref != name:
                ins.operands.append(by_name[ref])
                by_name[ref].users.append(ins)
    return sorted(by_name.values(), key=lambda i: i.row)


def _from_metadata(ins: _Instr, tables, index: LocIndex) -> dict | None:
    m = _META.search(ins.text)
    if m is None:
        return None
    op_name = m.group(1).replace("\\'", "'").replace('\\"', '"')
    frame = _frame(tables, int(m.group(2))) if m.group(2) else None
    if frame is None and m.group(3):
        frame = (m.group(3), int(m.group(4)), -1, -1, -1)
    eqn = index.lookup(op_name, frame) if frame is not None else None
    line = frame[1] if frame is not None and is_user_file(frame[0]) else None
    return {"row": ins.row, "line": line, "eqn_id": eqn, "op_name": op_name}


def _placed(ins: _Instr | None) -> bool:
    return ins is not None and ins.link is not None and ins.link["line"] is not None


# HLO opcodes of the primitives XLA most often re-emits without metadata
_PRIMITIVE = {"dot": "dot_general", "multiply": "mul", "add": "add", "subtract": "sub",
              "divide": "div", "tanh": "tanh", "exponential": "exp", "log": "log",
              "negate": "neg", "maximum": "max", "minimum": "min", "sqrt": "sqrt",
              "rsqrt": "rsqrt", "convolution": "conv_general_dilated"}


def _infer(ins: _Instr, index: LocIndex, callers: bool) -> bool:
    """Places an instruction XLA left without a user frame; True when it changed. In
    order: a fusion takes its fused root's link; an op named under the name stack
    (`jit(f)/transpose(jvp())/mul;…`) the neighbour whose line is one where an op of that
    name was lowered; an op without metadata the one equation of its primitive and
    shape; a value entering a computation (parameter, constant, broadcast, bitcast, an
    argument's name) its first placed user's link (with `callers`, then its caller's);
    anything else (copy, tuple) its first placed operand's."""
    link = ins.link
    if _placed(ins) or (ins.entry and ins.param is not None):
        return False
    op_name = link["op_name"] if link is not None else None
    found = _by_root(ins) or _by_name(ins, op_name, index) or _by_primitive(ins, index)
    if found is None:
        source = _neighbour(ins, op_name, callers)
        found = source and (source.link["line"], source.link["eqn_id"])
    if not found:
        return False
    ins.link = {"row": ins.row, "line": found[0], "eqn_id": found[1], "op_name": op_name}
    return True


def _by_root(ins: _Instr):
    root = ins.root if ins.opcode in ("fusion", "call") else None
    return (root.link["line"], root.link["eqn_id"]) if _placed(root) else None


def _by_name(ins: _Instr, op_name: str | None, index: LocIndex):
    if not op_name or "/" not in op_name:
        return None
    cands = index.candidates(op_name)
    for n in (*ins.operands, *ins.users):
        if _placed(n) and n.link["line"] in cands:
            return n.link["line"], cands[n.link["line"]]
    return next(iter(cands.items())) if len(cands) == 1 else None


def _by_primitive(ins: _Instr, index: LocIndex):
    prim = _PRIMITIVE.get(ins.opcode) if ins.link is None else None
    cands = index.by_prim.get((prim, ins.shape), {}) if prim else {}
    return next(iter(cands.items())) if len(cands) == 1 else None


def _neighbour(ins: _Instr, op_name: str | None, callers: bool) -> _Instr | None:
    users = [u for u in ins.users if _placed(u)]
    operands = [o for o in ins.operands if _placed(o)]
    arg_like = (ins.param is not None or ins.opcode in _ENTERING or not ins.operands
                or (op_name is not None and "/" not in op_name))
    if not arg_like:
        return (operands or users or [None])[0]
    if users:
        return users[0]
    if callers and ins.callers:  # parameters and roots of called computations
        outer = [c.operands[ins.param] for c in ins.callers
                 if ins.param is not None and ins.param < len(c.operands)]
        placed = [o for o in outer if _placed(o)] + [c for c in ins.callers if _placed(c)]
        if placed:
            return placed[0]
    return (operands or [None])[0]


_ENTERING = ("parameter", "constant", "broadcast", "bitcast", "iota", "reshape")
