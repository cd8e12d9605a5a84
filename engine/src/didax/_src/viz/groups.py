"""The hierarchy of a card's program (TraceCard.groups, EqnData.group), read from what each
equation recorded when it was staged, as JAX records its name stack:

- each call of a user function below the card's own function is a `call` group (two calls
  of `dense` are two groups; the call id in the traceback tells them apart);
- each `jax.named_scope` / `jax.named_call` block is a `named_scope` group, nested in the
  call that opened it;
- transformations applied inside the card's function (`jvp`, `transpose`, `vmap`) are
  `transform` groups, consecutive ones merged and named as JAX prints them, with the
  transformed function: `transpose(jvp(loss))`;
- the body of a nested `jit` is a `jit` group `jit(name)` under the group of its equation.

A group's key is its whole path (so the backward pass's `mlp` under `transpose(jvp(loss))`
is not the forward pass's `mlp`). May import core, source_info, viz.jaxpr_data.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from didax._src import core, source_info
from didax._src.core import Jaxpr
from didax._src.source_info import NameEntry, SourceInfo
from didax._src.viz.jaxpr_data import source_data


class Groups:
    """Builds GroupData for one card; group ids are shared by every program of the card
    (stage programs re-use the primal's groups where their equations come from it)."""

    def __init__(self):
        self.data: list[dict] = []
        self.ids: dict[tuple, str] = {}
        # (the equations holding the sub-jaxpr, outermost first; eqn) -> group id: a jit
        # body shared by two calls is walked once per call
        self.of_eqn: dict[tuple, str | None] = {}

    def add(self, jaxpr: Jaxpr) -> dict[tuple, str | None]:
        """Assigns a group to every equation of jaxpr (nested ones too); returns the map,
        keyed by (holders, eqn) as JaxprRenderer looks it up."""
        self._walk(jaxpr, (), None, ())
        return self.of_eqn

    def _walk(self, jaxpr: Jaxpr, prefix: tuple, parent: str | None, holders: tuple) -> None:
        root = _root_call(jaxpr)
        for eqn in jaxpr.eqns:
            key, gid = self._place(eqn.source_info, root, prefix, parent)
            self.of_eqn[(holders, eqn)] = gid
            inner = (*holders, eqn)
            for sub in core.jaxprs_in_params(eqn.params):
                if eqn.primitive.name == "jit":
                    jkey = (*key, ("jit", id(eqn), len(holders)))
                    name = f"jit({eqn.params.get('name', '')})"
                    jid = self._group(jkey, name, "jit", gid, source_data(eqn.source_info))
                    self._walk(sub, jkey, jid, inner)
                else:
                    self._walk(sub, key, gid, inner)

    def _place(self, info: SourceInfo | None, root: int, prefix: tuple, parent: str | None):
        """(the key, the id) of the innermost group of an equation made at info."""
        key, gid = prefix, parent
        for seg_key, name, kind, site in _segments(info, root):
            key = (*key, seg_key)
            gid = self._group(key, name, kind, gid, site)
        return key, gid

    def _group(self, key: tuple, name: str, kind: str, parent: str | None, site) -> str:
        gid = self.ids.get(key)
        if gid is None:
            gid = self.ids[key] = f"g{len(self.data)}"
            self.data.append({"id": gid, "name": name, "kind": kind, "parent": parent,
                              "call_site": site})
        return gid


def _root_call(jaxpr: Jaxpr) -> int:
    """The call id of the function this jaxpr traced: the first user frame most of its
    equations share (0 if none)."""
    firsts = Counter(e.source_info.traceback[0][2] for e in jaxpr.eqns
                     if e.source_info is not None and e.source_info.traceback)
    return firsts.most_common(1)[0][0] if firsts else 0


def _segments(info: SourceInfo | None, root: int) -> list[tuple[Any, str, str, Any]]:
    """The path of groups of an equation: [(segment key, name, kind, call site)], from the
    outside in, merging the traceback's calls and the name stack's entries (each entry
    sits just inside the call that pushed it)."""
    if info is None:
        return []
    frames = list(info.traceback)
    caller = None
    if frames and frames[0][2] == root:
        caller = frames.pop(0)
    owned: dict[int, list[NameEntry]] = {}
    loose: list[NameEntry] = []
    cids = {cid for _, _, cid in frames}
    for e in info.name_stack:
        (owned.setdefault(e.owner, []) if e.owner in cids else loose).append(e)
    segs: list[Any] = list(loose)
    for fr in frames:
        segs.append((fr, caller))
        segs += owned.get(fr[2], [])
        caller = fr
    return _merge_transforms(segs)


def _merge_transforms(segs: list) -> list[tuple[Any, str, str, Any]]:
    out: list[tuple[Any, str, str, Any]] = []
    run: list[NameEntry] = []
    for s in [*segs, None]:
        if isinstance(s, NameEntry) and s.transform:
            run.append(s)
            continue
        if run:
            out.append(_transform_segment(run))
            run = []
        if isinstance(s, NameEntry):
            out.append((("e", s.uid), s.name, "named_scope", _site(s.where)))
        elif s is not None:
            (code, lasti, cid), caller = s
            out.append((("c", cid, code), code.co_name, "call", _site(caller)))
    return out


def _transform_segment(run: list[NameEntry]):
    name = run[-1].label
    for e in reversed(run):
        name = f"{e.name}({name})"
    return (("t", *(e.uid for e in run)), name, "transform", _site(run[0].where))


def _site(frame) -> dict | None:
    """The source location of a traceback entry (code, lasti, ...) or None."""
    if frame is None:
        return None
    code, lasti = frame[0], frame[1]
    line = source_info.position(code, lasti)[0]
    return source_data(SourceInfo(code.co_filename, line, code.co_qualname))
