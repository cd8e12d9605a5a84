"""Loops on trace cards: `scan`, `while` and the loops `fori_loop` lowers to, iteration by
iteration (`LoopRecord` in the protocol).

Forward, the loop equation's outputs are those of the whole loop (as the user's program
computed them); besides, its first N iterations (N = the run's `loop_iterations`) are
evaluated one by one for the record: the carry entering each and what it produced (scan's
ys), one forward step per iteration (`Step.iteration`), the body's variables showing
iteration 0. A while loop is counted up to a bound (`WHILE_LIMIT` iterations or
`WHILE_SECONDS`); a `loop_truncated` notice says "first N of M iterations".

Backward (scan under reverse mode), iterations are walked in reverse: the iterations after
the first N are pulled back as one scan (one step, their xs contributions landing in
`[N:M]`), then iterations N-1 .. 0 one step each through the pullback of the body at that
iteration: contributions to the loop's constants (one per iteration), to its xs (landing in
row t) and, at iteration 0, to the initial carry. `LoopRecord.backward` holds the carry
cotangent each iteration's transpose passes on and the cotangents of its xs.

May import core, interpreters, lax.control_flow.common, viz.walk/values/backward.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from didax._src import core
from didax._src.core import Literal
from didax._src.interpreters import tape
from didax._src.interpreters.ad import Zero
from didax._src.lax.control_flow.common import loop_origin
from didax._src.viz.values import summarize

WHILE_LIMIT = 1000
WHILE_SECONDS = 0.5


def names(prefix: str, n: int) -> list[str]:
    return [prefix] if n == 1 else [f"{prefix}[{i}]" for i in range(n)]


def _eval(closed, args) -> list:
    return core.eval_jaxpr(closed.jaxpr, closed.consts, *args)


def _kind(body, default: str) -> str:
    return loop_origin.get(body.jaxpr, default)


def _record(walk, eqn, fr, kind, length, recorded, carry_names, output_names) -> dict:
    rec = {"eqn_id": walk.ids.eqn(eqn, fr.scope), "kind": kind, "length": int(length),
           "recorded": recorded, "carry_names": carry_names, "output_names": output_names,
           "forward": [], "backward": []}
    walk.loops.append(rec)
    return rec


def _truncated(walk, rec: dict, more: bool = False) -> None:
    if rec["recorded"] < rec["length"] or more:
        of = f"at least {rec['length']}" if more else str(rec["length"])
        walk.notices.append({"kind": "loop_truncated", "eqn_id": rec["eqn_id"],
                             "message": f"first {rec['recorded']} of {of} iterations"})


def _body_values(walk, fr, eqn, body, args) -> list[str]:
    """Walks the body once (iteration 0) for the values of its variables; their ids."""
    from didax._src.viz.walk import Walk  # noqa: PLC0415

    sub = Walk(walk.ids)
    sub.values = walk.values
    scope = walk.ids.eqn(eqn, fr.scope)
    try:
        sub.run(body.jaxpr, body.consts, args, [False] * len(args), scope=scope)
    except Exception:  # noqa: BLE001 - the record stands without the body's values
        return []
    return [st_v for st in sub.steps for st_v in st["var_ids"]] + [
        walk.ids.var(v, scope) for v in body.jaxpr.invars]


# ----------------------------------------------------------------------------------------
# scan
# ----------------------------------------------------------------------------------------


def scan(walk, fr, eqn, invals, act, tans):
    """The scan handler of the walk."""
    p = eqn.params
    body, nc, nk, m = p["jaxpr"], p["num_consts"], p["num_carry"], p["length"]
    if m == 0:
        return walk.plain(fr, eqn, invals, act, tans)
    outs, out_act, out_tans = walk.plain(fr, eqn, invals, act, tans, pull=False)
    n = min(m, walk.loop_iterations)
    consts, carry, xs = invals[:nc], invals[nc:nc + nk], invals[nc + nk:]
    rec = _record(walk, eqn, fr, _kind(body, "scan"), m, n,
                  names("i", 1) + names("val", nk - 1) if _kind(body, "") == "fori_loop"
                  else names("carry", nk), names("y", len(body.jaxpr.outvars) - nk))
    it = ScanIterations(eqn, fr.scope, list(invals), nc, nk, m, n, bool(p["reverse"]))
    eid = rec["eqn_id"]
    for t in range(n):
        x_t = [np.take(np.asarray(x), it.index(t), axis=0) for x in xs]
        args = [*consts, *carry, *x_t]
        if walk.reverse and any(act):
            new, f_vjp = tape.vjp_flat(lambda *a: _eval(body, a), args)
            it.pulls.append(f_vjp)
        else:
            new = _eval(body, args)
        rec["forward"].append({"index": t, "carry": [summarize(c) for c in carry],
                               "outputs": [summarize(y) for y in new[nk:]]})
        shown = _body_values(walk, fr, eqn, body, args) if t == 0 else []
        walk.step(eid, shown, f"{rec['kind']}: iteration {t}", iteration=t)
        it.carries.append(carry)
        carry = new[:nk]
    it.carries.append(carry)
    if walk.reverse and any(act):
        it.rec, it.active = rec, act
        walk.tape.append(it)
    _truncated(walk, rec)
    rest = f"iteration {n}" if m == n + 1 else f"iterations {n}..{m - 1}"
    walk.labels[id(eqn)] = f"{rec['kind']} returns" if n == m else \
        f"{rec['kind']}: {rest} (not recorded), results"
    return outs, out_act, out_tans


@dataclass
class ScanIterations:
    """A scan's tape unit: per-iteration pullbacks of its first N iterations and how to
    pull back the rest as one scan."""

    eqn: Any
    scope: str
    invals: list
    nc: int
    nk: int
    m: int
    n: int
    reverse: bool
    pulls: list = field(default_factory=list)
    carries: list = field(default_factory=list)
    rec: dict | None = None
    active: list | None = None

    def index(self, t: int) -> int:
        """The row of xs / ys iteration t reads / writes."""
        return self.m - 1 - t if self.reverse else t

    def transpose(self, back) -> None:
        """Backward steps: the unrecorded iterations as one, then N-1 .. 0."""
        eqn, scope = self.eqn, self.scope
        cts = [back.ct(v, scope) for v in eqn.outvars]
        if all(c is None for c in cts):
            return
        cts = [np.zeros(v.aval.shape, v.aval.dtype) if c is None else c
               for v, c in zip(eqn.outvars, cts)]
        carry_ct, ys_ct = cts[:self.nk], cts[self.nk:]
        if self.m > self.n:
            carry_ct = self._suffix(back, carry_ct, ys_ct)
        for t in range(self.n - 1, -1, -1):
            carry_ct = self._iteration(back, t, carry_ct, ys_ct)

    def _iteration(self, back, t: int, carry_ct, ys_ct):
        row = self.index(t)
        y_ct = [np.asarray(y)[row] for y in ys_ct]
        got = self.pulls[t]([*_float_cts(carry_ct, self.carries[t + 1]), *y_ct])
        consts_ct, new_carry, xs_ct = _split(got, self.nc, self.nk)
        sent = self._send_consts(back, consts_ct)
        sent += self._send_xs(back, xs_ct, [row])
        if t == 0:
            sent += self._send_init(back, new_carry)
        self.rec["backward"].append({
            "index": t, "carry": [summarize(_dense(c, a)) for c, a in
                                  zip(new_carry, self.carries[t])],
            "outputs": [summarize(_dense(c, x)) for c, x in
                        zip(xs_ct, [np.asarray(x)[row] for x in self._xs()])]})
        back.step(back.ids.eqn(self.eqn, self.scope), sent,
                  f"transpose {self.rec['kind']}: iteration {t}", iteration=t)
        return [_dense(c, a) for c, a in zip(new_carry, self.carries[t])]

    def _suffix(self, back, carry_ct, ys_ct):
        """Iterations N .. M-1 pulled back as one shorter scan."""
        rows = list(range(self.n, self.m)) if not self.reverse else \
            list(range(0, self.m - self.n))
        xs = [np.asarray(x)[rows[0]:rows[-1] + 1] for x in self._xs()]
        consts, carry = self.invals[:self.nc], self.carries[self.n]
        params = dict(self.eqn.params, length=self.m - self.n)

        def suffix(*a):
            return list(self.eqn.primitive.bind(*a, **params))

        _, f_vjp = tape.vjp_flat(suffix, [*consts, *carry, *xs])
        y_ct = [np.asarray(y)[rows[0]:rows[-1] + 1] for y in ys_ct]
        got = f_vjp([*_float_cts(carry_ct, carry), *y_ct])
        consts_ct, new_carry, xs_ct = _split(got, self.nc, self.nk)
        sent = self._send_consts(back, consts_ct) + self._send_xs(back, xs_ct, rows)
        rest = f"iteration {self.n}" if self.m == self.n + 1 else \
            f"iterations {self.m - 1}..{self.n}"
        back.step(back.ids.eqn(self.eqn, self.scope), sent,
                  f"transpose {self.rec['kind']}: {rest} (not recorded)")
        return [_dense(c, a) for c, a in zip(new_carry, carry)]

    def _xs(self) -> list:
        return self.invals[self.nc + self.nk:]

    def _send(self, back, pos: int, value, **extra) -> list:
        atom = self.eqn.invars[pos]
        if value is None or type(value) is Zero or type(atom) is Literal or \
                not self.active[pos]:
            return []
        c = back.send(atom, self.scope, value, back.ids.eqn(self.eqn, self.scope), **extra)
        return [c] if c else []

    def _send_consts(self, back, consts_ct) -> list:
        return [c for i, ct in enumerate(consts_ct) for c in self._send(back, i, ct)]

    def _send_init(self, back, carry_ct) -> list:
        return [c for i, ct in enumerate(carry_ct) for c in self._send(back, self.nc + i, ct)]

    def _send_xs(self, back, xs_ct, rows) -> list:
        from didax._src.viz.backward import describe_mask  # noqa: PLC0415

        out = []
        for i, ct in enumerate(xs_ct):
            pos = self.nc + self.nk + i
            if ct is None or type(ct) is Zero:
                continue
            aval = self.eqn.invars[pos].aval
            full = np.zeros(aval.shape, aval.dtype)
            full[rows[0]:rows[-1] + 1] = np.asarray(ct).reshape(
                (len(rows), *aval.shape[1:]))
            mask = np.zeros(aval.shape, bool)
            mask[rows[0]:rows[-1] + 1] = True
            out += self._send(back, pos, full, landing=describe_mask(mask, aval))
        return out


def _split(got, nc, nk):
    return got[:nc], got[nc:nc + nk], got[nc + nk:]


def _dense(c, like):
    a = core.get_aval(like)
    if c is None or type(c) is Zero:
        return np.zeros(a.shape, a.to_tangent_aval().dtype)
    return np.asarray(c)


def _float_cts(cts, values) -> list:
    """Cotangents for a pullback: None for non-differentiable carries (counters)."""
    out = []
    for c, v in zip(cts, values):
        a = core.get_aval(v)
        out.append(None if a.to_tangent_aval().dtype != a.dtype else c)
    return out


# ----------------------------------------------------------------------------------------
# while
# ----------------------------------------------------------------------------------------


def while_loop(walk, fr, eqn, invals, act, tans):
    """The while handler of the walk: forward only (JAX cannot reverse-differentiate it)."""
    p = eqn.params
    cond, body = p["cond_jaxpr"], p["body_jaxpr"]
    cc, bc = p["cond_nconsts"], p["body_nconsts"]
    outs, out_act, out_tans = walk.plain(fr, eqn, invals, act, tans)
    cconsts, bconsts, carry = invals[:cc], invals[cc:cc + bc], list(invals[cc + bc:])
    kind = _kind(body, "while_loop")
    carry_names = names("i", 1) + ["upper"] + names("val", len(carry) - 2) \
        if kind == "fori_loop" and len(carry) > 2 else names("carry", len(carry))
    rec = _record(walk, eqn, fr, kind, 0, 0, carry_names, [])
    t, start, done = 0, time.monotonic(), False
    while t < max(WHILE_LIMIT, walk.loop_iterations):
        if t >= walk.loop_iterations and time.monotonic() - start > WHILE_SECONDS:
            break
        if not bool(np.asarray(_eval(cond, [*cconsts, *carry])[0])):
            done = True
            break
        if t < walk.loop_iterations:
            rec["forward"].append({"index": t, "carry": [summarize(c) for c in carry],
                                   "outputs": []})
            shown = _body_values(walk, fr, eqn, body, [*bconsts, *carry]) if t == 0 else []
            walk.step(rec["eqn_id"], shown, f"{kind}: iteration {t}", iteration=t)
        carry = _eval(body, [*bconsts, *carry])
        t += 1
    rec["length"], rec["recorded"] = t, len(rec["forward"])
    _truncated(walk, rec, more=not done)
    walk.labels[id(eqn)] = f"{kind} returns"
    return outs, out_act, out_tans
