"""Replaying a card's primal program at concrete values, one equation at a time.

The walk binds each equation of the primal jaxpr on the values the user's call computed
(with callbacks muted by the caller), records the value of every variable and a forward
timeline step per equation, and — for the card's differentiation — what each equation
does to derivatives:

- reverse mode: the pullback of the equation alone (`tape.vjp_flat` of a function that
  binds just that equation, tracking the operands that depend on the differentiated
  inputs), kept in program order for `backward.py` to replay in reverse;
- forward mode: the tangents of its outputs (`ad.jvp_flat` of the equation alone) from
  the tangents of its operands.

`jit` bodies and the taken branch of `cond` are walked inline: their equations are steps
of their own, entered and left through the enclosing equation. `scan` / `while` loops are
walked by `loops.py` (its tape units transpose themselves). custom_jvp / custom_vjp calls are one equation each, so their
pullback and tangents use the user's rules. Variables computed from an io_callback's result
(which a muted re-evaluation cannot know) get no value and carry no derivative.

May import core, interpreters, viz.values/loops.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from didax._src import core, dtypes
from didax._src.core import Jaxpr, Literal
from didax._src.interpreters import ad, tape
from didax._src.interpreters.ad import Zero
from didax._src.viz.values import summarize

# Equations whose body is a plain call of a jaxpr (walked inline).
CALLS = {"jit": "jaxpr", "closed_call": "call_jaxpr", "core_call": "call_jaxpr",
         "remat": "jaxpr", "checkpoint": "jaxpr"}
_IO = ("IO", "OrderedIO")


@dataclass
class Pull:
    """One equation's pullback: `idx` are the operand positions it differentiates."""

    eqn: Any
    scope: str
    idx: list[int]
    f_vjp: Callable
    invals: list


@dataclass
class Boundary:
    """Entering (`enter`) or leaving (`leave`) an inlined body: its invars/outvars alias
    the enclosing equation's operands/outputs."""

    kind: str
    eqn: Any
    scope: str
    inner_scope: str
    jaxpr: Jaxpr
    label: str


@dataclass
class Frame:
    """The state of one jaxpr being walked: values, which variables depend on the
    differentiated inputs (`act`), their tangents, and the io-tainted ones."""

    scope: str
    env: dict = field(default_factory=dict)
    act: set = field(default_factory=set)
    tan: dict = field(default_factory=dict)
    taint: set = field(default_factory=set)


class Walk:
    """One replay of a primal program. `reverse` records pullbacks, `forward` tangents."""

    def __init__(self, ids, reverse: bool = False, forward: bool = False,
                 loop_iterations: int = 64, max_values: int = 1 << 30):
        from didax._src.viz import loops  # noqa: PLC0415

        self.ids = ids
        self.reverse, self.forward = reverse, forward
        self.loop_iterations = max(1, int(loop_iterations))
        self.max_values = max_values  # summaries beyond it would be trimmed: not computed
        self.values: dict[str, dict] = {}
        self.tangents: dict[str, dict] = {}
        self.steps: list[dict] = []       # forward timeline steps (unnumbered)
        self.tape: list[Pull | Boundary] = []
        self.active: dict[str, Any] = {}  # var id -> aval of every differentiable variable
        self.loops: list[dict] = []
        self.notices: list[dict] = []
        self.labels: dict[int, str] = {}  # forward step labels set by handlers
        self.handlers: dict[str, Callable] = {
            "cond": self._cond,
            "scan": lambda *a: loops.scan(self, *a),
            "while": lambda *a: loops.while_loop(self, *a)}
        for name in CALLS:
            self.handlers[name] = self._call

    # ------------------------------------------------------------------------------------
    # A jaxpr
    # ------------------------------------------------------------------------------------

    def run(self, jaxpr: Jaxpr, consts: Sequence, args: Sequence, active: Sequence[bool],
            tangents: Sequence[Any] | None = None, scope: str = "",
            tainted: Sequence[bool] | None = None) -> tuple[list, Frame]:
        """Walks jaxpr on (consts, args); returns (output values, the final frame)."""
        fr = Frame(scope)
        tangents = tangents or [None] * len(args)
        tainted = tainted or [False] * len(args)
        for v, x in zip(jaxpr.constvars, consts):
            self.write(fr, v, x)
        for v, x, a, t, bad in zip(jaxpr.invars, args, active, tangents, tainted):
            if bad:
                fr.taint.add(v)
            self.write(fr, v, x, a, t)
        for eqn in jaxpr.eqns:
            self.eqn(fr, eqn)
        return [read(fr, a) for a in jaxpr.outvars], fr

    def eqn(self, fr: Frame, eqn) -> None:
        """Evaluates one equation (inline bodies walked), writes its outputs, adds its
        forward step."""
        invals = [read(fr, a) for a in eqn.invars]
        bad = any(type(a) is not Literal and a in fr.taint for a in eqn.invars) or any(
            getattr(e, "name", "") in _IO for e in eqn.effects)
        act = [not bad and type(a) is not Literal and a in fr.act for a in eqn.invars]
        tans = [fr.tan.get(a) if type(a) is not Literal else None for a in eqn.invars]
        handler = self.handlers.get(eqn.primitive.name, self.plain)
        outs, out_act, out_tans = handler(fr, eqn, invals, act, tans)
        for v, x, a, t in zip(eqn.outvars, outs, out_act, out_tans):
            if bad:
                fr.taint.add(v)
            self.write(fr, v, x, a and not bad, t)
        label = self.labels.pop(id(eqn), eqn.primitive.name)
        self.step(self.ids.eqn(eqn, fr.scope), [self.ids.var(v, fr.scope) for v in
                                                  eqn.outvars if type(v) is not core.DropVar
                                                  and v not in fr.taint], label)

    def write(self, fr: Frame, v, x, active: bool = False, tangent=None) -> None:
        fr.env[v] = x
        if type(v) is core.DropVar or v in fr.taint:
            return
        vid = self.ids.var(v, fr.scope)
        room = len(self.values) < self.max_values
        if room:
            self.values[vid] = summarize(x)
        if active and differentiable(v.aval):
            fr.act.add(v)
            self.active[vid] = v.aval
            if tangent is not None:
                fr.tan[v] = tangent
                if room:
                    self.tangents[vid] = summarize(tangent)

    def step(self, eqn_id: str | None, var_ids: list[str], label: str,
             iteration: int | None = None) -> None:
        st = {"phase": "forward", "eqn_id": eqn_id, "var_ids": var_ids, "label": label}
        if iteration is not None:
            st["iteration"] = iteration
        self.steps.append(st)

    # ------------------------------------------------------------------------------------
    # Equations
    # ------------------------------------------------------------------------------------

    def plain(self, fr: Frame, eqn, invals, act, tans, pull: bool = True):
        """A primitive evaluated as one step (its pullback / tangents of the whole)."""
        outs, out_tans = apply(eqn, invals, act, tans if self.forward else None)
        if pull and self.reverse and any(act):
            idx = [i for i, a in enumerate(act) if a]
            _, f_vjp = tape.vjp_flat(_binder(eqn, invals, idx), [invals[i] for i in idx])
            self.tape.append(Pull(eqn, fr.scope, idx, f_vjp, invals))
        out_act = [any(act)] * len(outs)
        return outs, out_act, out_tans

    def _call(self, fr: Frame, eqn, invals, act, tans):
        """A jit (or other call) equation: its body's equations are steps of their own."""
        closed = eqn.params[CALLS[eqn.primitive.name]]
        name = f"{eqn.primitive.name}({eqn.params.get('name', '')})"
        return self.inline(fr, eqn, closed, invals, act, tans, name)

    def _cond(self, fr: Frame, eqn, invals, act, tans):
        """cond: the taken branch is walked inline (the index receives no derivative)."""
        branches = eqn.params["branches"]
        index = min(max(int(np.asarray(invals[0])), 0), len(branches) - 1)
        name = f"cond (branch {index} taken)"
        return self.inline(fr, eqn, branches[index], invals[1:], act[1:], tans[1:], name,
                           offset=1)

    def inline(self, fr: Frame, eqn, closed, invals, act, tans, name, offset=0):
        inner = self.ids.eqn(eqn, fr.scope)
        jaxpr = closed.jaxpr if hasattr(closed, "consts") else closed
        consts = closed.consts if hasattr(closed, "consts") else []
        if self.reverse:
            self.tape.append(Boundary("enter", eqn, fr.scope, inner, jaxpr, name))
        self.step(inner, [self.ids.var(v, inner) for v in [*jaxpr.constvars, *jaxpr.invars]],
                  f"enter {name}")
        taint = [type(a) is not Literal and a in fr.taint for a in eqn.invars[offset:]]
        outs, sub = self.run(jaxpr, consts, invals, act, tans if self.forward else None,
                             inner, taint)
        if self.reverse:
            self.tape.append(Boundary("leave", eqn, fr.scope, inner, jaxpr, name))
        out_act = [type(a) is not Literal and a in sub.act for a in jaxpr.outvars]
        out_tans = [sub.tan.get(a) if type(a) is not Literal else None for a in jaxpr.outvars]
        self.labels[id(eqn)] = f"{name} returns"
        return outs, out_act, out_tans


# ----------------------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------------------


def read(fr: Frame, a):
    return a.val if type(a) is Literal else fr.env[a]


def differentiable(aval) -> bool:
    return isinstance(aval, core.ShapedArray) and dtypes.is_inexact(aval.dtype)


def bind_eqn(eqn, invals) -> list:
    """The equation's outputs on invals (always a list)."""
    out = eqn.primitive.bind(*invals, **eqn.params)
    return list(out) if eqn.primitive.multiple_results else [out]


def _binder(eqn, invals, idx) -> Callable:
    """fun(*operands at idx) -> outputs of eqn, the other operands held fixed."""
    def fun(*xs):
        args = list(invals)
        for i, x in zip(idx, xs):
            args[i] = x
        return bind_eqn(eqn, args)
    return fun


def apply(eqn, invals, act, tans) -> tuple[list, list]:
    """(outputs, output tangents or Nones): with tans (forward mode) and an active
    operand, the JVP of the equation alone."""
    if tans is None or not any(a and t is not None for a, t in zip(act, tans)):
        outs = bind_eqn(eqn, invals)
        return outs, [None] * len(outs)
    tangents = [t if a and t is not None else Zero(core.get_aval(x).to_tangent_aval())
                for x, a, t in zip(invals, act, tans)]
    outs, touts = ad.jvp_flat(lambda *xs: bind_eqn(eqn, list(xs)), invals, tangents,
                              instantiate=False)
    return outs, [None if type(t) is Zero else t for t in touts]
