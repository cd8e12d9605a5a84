"""The backward pass of a card at the granularity of contributions.

The walk (walk.py) kept each equation's pullback in program order. Replayed in reverse
from the output seed, each transposed equation is one backward step listing the
`Contribution` it sends to each differentiable operand: the cotangent in the operand's
shape and the running partial sum at that variable once it is added. A variable used k
times receives k contributions; after the last step every variable's partial sum is its
cotangent (what `jax.grad` returns for the inputs).

Where an operand was broadcast (broadcast_in_dim, or implicitly by a pointwise primitive)
the contribution records the shape it was reduced from and the summed axes; where it was
indexed (slice, dynamic_slice, gather) or scattered into (scatter-add, dynamic_update_slice)
it records in words where the contribution lands.

May import core, interpreters, viz.walk/values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from didax._src import core
from didax._src.core import Literal
from didax._src.interpreters import ad
from didax._src.interpreters.ad import Zero
from didax._src.viz.values import summarize
from didax._src.viz.walk import Boundary, Pull, Walk, bind_eqn

_INDEXING = {"slice", "dynamic_slice", "gather"}           # operand 0 is indexed
_SCATTERING = {"scatter-add": 2, "scatter_add": 2, "dynamic_update_slice": 1}
_ELEMENTWISE_EXTRA = {"select_n", "add_any"}


class Backward:
    """Replays a walk's tape in reverse, accumulating cotangents per variable id."""

    def __init__(self, walk: Walk, max_contributions: int = 1 << 30):
        self.walk, self.ids = walk, walk.ids
        self.max_contributions = max_contributions  # beyond it the card drops them all
        self.acc: dict[str, np.ndarray] = {}
        self.count: dict[str, int] = {}
        self.contributions: list[dict] = []
        self.steps: list[dict] = []

    def run(self, outvars: Sequence, seeds: Sequence[Any], label: str) -> None:
        """Seeds the outputs (None: no cotangent), then transposes every equation."""
        sent = [self.send(v, "", s, None) for v, s in zip(outvars, seeds)
                if s is not None and type(v) is not Literal]
        self.step(None, [c for c in sent if c], label)
        for unit in reversed(self.walk.tape):
            if isinstance(unit, Pull):
                self._pull(unit)
            elif isinstance(unit, Boundary):
                self._boundary(unit)
            else:
                unit.transpose(self)  # a loop (loops.py)

    def finish(self) -> tuple[list[dict], dict[str, dict]]:
        """(backward steps, {var_id: cotangent summary}); numbers each contribution's
        `of`. Differentiable variables that received nothing have cotangent zero."""
        for c in self.contributions:
            c["of"] = self.count[c["var_id"]]
        if len(self.contributions) >= self.max_contributions:
            for st in self.steps:
                st["contributions"] = []
            self.walk.notices.append({
                "kind": "card_trimmed", "eqn_id": None, "message":
                f"card trimmed to its size budget: the backward pass has more than "
                f"{self.max_contributions} contributions; they are left out (cotangents "
                "keep the totals)"})
        cts = {}
        for vid, aval in self.walk.active.items():
            if len(cts) >= self.walk.max_values:
                break
            ct = self.acc.get(vid)
            cts[vid] = summarize(ct if ct is not None else np.zeros(aval.shape, aval.dtype))
        return self.steps, cts

    # ------------------------------------------------------------------------------------

    def send(self, var, scope: str, value, from_eqn: str | None, **extra) -> dict | None:
        """Adds one contribution to var's running sum; returns the Contribution dict."""
        vid = self.ids.var(var, scope)
        if vid not in self.walk.active:
            return None
        value = np.asarray(value).astype(var.aval.dtype, copy=False)
        total = self.acc.get(vid)
        total = value if total is None else total + value
        self.acc[vid] = total
        k = self.count[vid] = self.count.get(vid, 0) + 1
        if len(self.contributions) >= self.max_contributions:
            return None  # (finish() drops them all: the budget could not hold them)
        c = {"var_id": vid, "from_eqn": from_eqn, "k": k, "of": k,
             "value": summarize(value), "partial": summarize(total)}
        c.update({key: v for key, v in extra.items() if v is not None})
        self.contributions.append(c)
        return c

    def step(self, eqn_id: str | None, contributions: list[dict], label: str,
             iteration: int | None = None) -> None:
        st = {"phase": "backward", "eqn_id": eqn_id,
              "var_ids": list(dict.fromkeys(c["var_id"] for c in contributions)),
              "label": label, "contributions": contributions}
        if iteration is not None:
            st["iteration"] = iteration
        self.steps.append(st)

    def ct(self, var, scope: str):
        """The cotangent accumulated so far at var (None: nothing arrived)."""
        return None if type(var) is core.DropVar else self.acc.get(self.ids.var(var, scope))

    def _pull(self, unit: Pull) -> None:
        eqn, scope = unit.eqn, unit.scope
        cts_out = [self.ct(v, scope) for v in eqn.outvars]
        if all(c is None for c in cts_out):
            return  # nothing flows back through this equation (as JAX skips zeros)
        eid = self.ids.eqn(eqn, scope)
        cts_in = unit.f_vjp(cts_out)
        sent = []
        for i, ct in zip(unit.idx, cts_in):
            atom = eqn.invars[i]
            if ct is None or type(ct) is Zero or type(atom) is Literal:
                continue
            extra = _reduction(eqn, i) or {}
            extra["landing"] = _landing(eqn, i, unit)
            sent.append(self.send(atom, scope, ct, eid, **extra))
        self.step(eid, [c for c in sent if c], f"transpose {eqn.primitive.name}")

    def _boundary(self, unit: Boundary) -> None:
        """Leaving a body backwards: the enclosing outputs' cotangents enter the body's
        outvars; entering it backwards: the body's invars pass theirs to the operands."""
        eqn, eid = unit.eqn, self.ids.eqn(unit.eqn, unit.scope)
        offset = len(eqn.invars) - len(unit.jaxpr.invars)  # cond: the index operand
        if unit.kind == "leave":
            pairs = [(a, unit.inner_scope, self.ct(v, unit.scope))
                     for v, a in zip(eqn.outvars, unit.jaxpr.outvars)]
            label = f"{unit.label}: cotangents enter the body"
        else:
            pairs = [(a, unit.scope, self.ct(v, unit.inner_scope))
                     for v, a in zip(unit.jaxpr.invars, eqn.invars[offset:])]
            label = f"{unit.label}: cotangents leave the body"
        if all(c is None for _, _, c in pairs):
            return
        sent = [self.send(a, s, c, eid) for a, s, c in pairs
                if c is not None and type(a) is not Literal]
        self.step(eid, [c for c in sent if c], label)


# ----------------------------------------------------------------------------------------
# Broadcasting and indexing
# ----------------------------------------------------------------------------------------


def _reduction(eqn, i: int) -> dict | None:
    """{reduced_from, reduced_axes} when operand i was broadcast to the output's shape."""
    shape = tuple(eqn.invars[i].aval.shape)
    out = tuple(eqn.outvars[0].aval.shape)
    name = eqn.primitive.name
    if name == "broadcast_in_dim" and i == 0:
        dims = tuple(eqn.params["broadcast_dimensions"])
        axes = [d for d in range(len(out)) if d not in dims]
        axes += [d for j, d in enumerate(dims) if shape[j] == 1 and out[d] != 1]
    elif shape != out and len(eqn.outvars) == 1 and (
            eqn.primitive in ad.pointwise or name in _ELEMENTWISE_EXTRA):
        if not shape:
            axes = list(range(len(out)))
        elif len(shape) == len(out):
            axes = [d for d in range(len(out)) if shape[d] == 1 and out[d] != 1]
        else:
            return None
    else:
        return None
    if not axes:
        return None
    return {"reduced_from": [int(d) for d in out], "reduced_axes": sorted(axes)}


def _landing(eqn, i: int, unit: Pull) -> str | None:
    """Where in operand i the contribution lands (indexing), or where in the result it
    was read from (scattering); None otherwise."""
    name = eqn.primitive.name
    try:
        if name in _INDEXING and i == 0:
            pos = unit.idx.index(0)
            ones = np.ones(eqn.outvars[0].aval.shape, eqn.outvars[0].aval.dtype)
            mask = np.asarray(unit.f_vjp([ones])[pos]) != 0
            return describe_mask(mask, eqn.invars[0].aval)
        if _SCATTERING.get(name) == i:
            return _scatter_source(eqn, i, unit.invals)
    except Exception:  # noqa: BLE001 - a description is optional, never a failure
        return None
    return None


def _scatter_source(eqn, i: int, invals) -> str | None:
    """Where the updates landed in the result: scatter ones into zeros."""
    out = eqn.outvars[0].aval
    args = list(invals)
    args[0] = np.zeros(out.shape, out.dtype)
    args[i] = np.ones(eqn.invars[i].aval.shape, out.dtype)
    mask = np.asarray(bind_eqn(eqn, args)[0]) != 0
    where = describe_mask(mask, out)
    return f"from {where}" if where else None


def describe_mask(mask: np.ndarray, aval) -> str | None:
    """Words for the elements of an array of type aval where mask is true."""
    short = aval.str_short(short_dtypes=True)
    if mask.all():
        return None
    if not mask.any():
        return f"nowhere in {short}"
    nz = np.argwhere(mask)
    lo, hi = nz.min(axis=0), nz.max(axis=0) + 1
    box = tuple(slice(a, b) for a, b in zip(lo, hi))
    if mask[box].all():
        parts = [":" if (a == 0 and b == n) else (str(a) if b == a + 1 else f"{a}:{b}")
                 for a, b, n in zip(lo, hi, mask.shape)]
        return f"[{', '.join(parts)}] of {short}"
    if len(nz) <= 8:
        items = [str(int(p[0])) if len(p) == 1 else str(tuple(int(q) for q in p))
                 for p in nz]
        return f"elements {', '.join(items)} of {short}"
    rows = mask.reshape(mask.shape[0], -1)
    if (rows.all(axis=1) == rows.any(axis=1)).all():
        hit = np.flatnonzero(rows.all(axis=1))
        if len(hit) <= 8:
            return f"rows {', '.join(str(int(r)) for r in hit)} of {short}"
        return f"{len(hit)} rows of {short}"
    return f"{int(mask.sum())} of {mask.size} elements of {short}"
