"""Values and derivatives of a card: runs the walk (walk.py) and the backward pass
(backward.py) for the card's kind, and assembles `values`, `tangents`, `cotangents`,
`loops`, `notices` and the replayable `timeline`.

What a card animates, by kind:
- reverse mode (grad, value_and_grad, vjp, jacrev, hessian's reverse half): the backward
  pass from a seed on the outputs: 1 for a scalar loss; for `vjp` ones on every output (the
  cotangent the user passes to the pullback later is not known when the card is made); for
  `jacrev` the first basis vector e0 of the first output (row 0 of the Jacobian);
- forward mode (jvp, linearize, jacfwd, hessian's forward half): tangents along the user's
  tangents for `jvp`; ones for `linearize` (its tangent is given later); the first basis
  vector e0 of the inputs for `jacfwd` and `hessian` (column 0 of the Jacobian).
A `selection` notice says which seed or direction a Jacobian card shows.

May import core, dtypes, callback, interpreters, viz.walk/backward/values/large.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from didax._src import core, dtypes
from didax._src.core import ClosedJaxpr
from didax._src.interpreters.ad import Zero
from didax._src.viz import large
from didax._src.viz.backward import Backward
from didax._src.viz.walk import Walk, differentiable

# Summaries the budget could hold at best (a value ~ 400 bytes, a contribution ~ 1 KB):
# beyond these the walk stops making them (budget.py would cut them anyway).
BYTES_PER_VALUE, BYTES_PER_CONTRIBUTION = 400, 1000
REVERSE_KINDS = {"grad", "value_and_grad", "vjp", "jacrev", "hessian"}
FORWARD_KINDS = {"jvp", "linearize", "jacfwd", "hessian"}


class FlowInputs:
    """What a card's flow depends on: its kind, the program, its flat arguments and, for
    jvp, the user's flat tangents."""

    def __init__(self, kind: str, primal: ClosedJaxpr, args: Sequence, ids,
                 tangents: Sequence | None = None, loop_iterations: int = 64,
                 max_bytes: int = 2 << 20, shown: int | None = None):
        self.kind, self.primal, self.args, self.ids = kind, primal, list(args), ids
        self.tangents, self.loop_iterations = tangents, loop_iterations
        self.max_bytes = max_bytes  # the card's size budget (budget.py cuts to it)
        self.shown = shown  # how many top-level equations the card shows (large.py)


def record_flow(card: dict, fi: FlowInputs, io: bool) -> list:
    """Fills card's values, tangents, cotangents, loops, notices and timeline; returns the
    program's output values. io: the program calls io_callbacks (no derivatives then)."""
    from didax._src import callback  # noqa: PLC0415

    jaxpr = fi.primal.jaxpr
    reverse = fi.kind in REVERSE_KINDS and not io and _differentiable_program(fi.primal)
    forward = fi.kind in FORWARD_KINDS and not io
    walk = Walk(fi.ids, reverse=reverse, forward=forward, loop_iterations=fi.loop_iterations,
                max_values=fi.max_bytes // BYTES_PER_VALUE)
    active = [differentiable(v.aval) for v in jaxpr.invars]
    tangents = _input_tangents(fi, walk) if forward else None
    shown = len(jaxpr.eqns) if fi.shown is None else fi.shown
    with callback.muted():
        walk.step(None, [fi.ids.var(v) for v in [*jaxpr.constvars, *jaxpr.invars]], "inputs")
        walked = jaxpr if shown == len(jaxpr.eqns) else large.head(fi.primal, shown).jaxpr
        outs, fr = walk.run(walked, fi.primal.consts, fi.args, active, tangents)
        back = None
        if reverse:
            back = Backward(walk, fi.max_bytes // BYTES_PER_CONTRIBUTION)
            if walked is jaxpr:
                seeds, label = _seeds(fi.kind, jaxpr.outvars, outs, walk)
                back.run(jaxpr.outvars, seeds, label)
            else:
                _backward_of_tail(fi, back, walk, shown, fr)
    steps = walk.steps
    if back is not None:
        bsteps, card["cotangents"] = back.finish()
        steps = steps + bsteps
    card["values"], card["tangents"] = walk.values, walk.tangents
    card["loops"] = walk.loops
    card["notices"] = card.get("notices", []) + walk.notices
    card["timeline"] = [dict(st, index=i) for i, st in enumerate(steps)]
    return outs


def _backward_of_tail(fi: FlowInputs, back: Backward, walk: Walk, shown: int, fr) -> None:
    """A card showing the first equations only: the rest pulled back as the first step."""
    frontier, outs, f_vjp = large.tail(fi.primal, shown, fr.env)
    seeds, _ = _seeds(fi.kind, fi.primal.jaxpr.outvars, outs, walk)
    cts = f_vjp(seeds)
    rest = len(fi.primal.jaxpr.eqns) - shown
    back.run(frontier, [None if type(c) is Zero else c for c in cts],
             f"output cotangent through the {rest} equations beyond the card")


def _differentiable_program(closed: ClosedJaxpr) -> bool:
    return any(dtypes.is_inexact(a.dtype) for a in closed.in_avals) and all(
        dtypes.is_inexact(a.dtype) for a in closed.out_avals) and bool(closed.out_avals)


def _selection(walk: Walk, message: str) -> None:
    walk.notices.append({"kind": "selection", "message": message, "eqn_id": None})


def _seeds(kind: str, outvars, outs, walk: Walk) -> tuple[list, str]:
    """The output cotangents the backward pass starts from, and the seed step's label."""
    vals = [np.ones(np.shape(o), core.get_aval(o).dtype) for o in outs]
    if kind == "jacrev" and (len(vals) > 1 or vals[0].size > 1):
        first = np.zeros_like(vals[0])
        first.reshape(-1)[0] = 1
        _selection(walk, "The backward pass starts from e0, the first basis vector of the "
                         "first output: the cotangents are row 0 of the Jacobian.")
        return [first] + [None] * (len(vals) - 1), "output cotangent = e0 (row 0)"
    if len(vals) > 1 or (kind == "vjp" and vals[0].size > 1):
        _selection(walk, "The backward pass starts from ones on every output (the "
                         "cotangent given to the pullback later is not known here).")
        return vals, "output cotangents = ones"
    return vals, "output cotangent = 1"


def _input_tangents(fi: FlowInputs, walk: Walk) -> list:
    """Tangents of the program's inputs for the card's forward-mode kind."""
    invars = fi.primal.jaxpr.invars
    zeros = [np.zeros(v.aval.shape, v.aval.dtype) if differentiable(v.aval) else None
             for v in invars]
    if fi.kind == "jvp" and fi.tangents is not None and len(fi.tangents) == len(invars):
        return [np.asarray(t) if z is not None else None for t, z in zip(fi.tangents, zeros)]
    if fi.kind in ("jvp", "linearize"):
        _selection(walk, "Tangents shown for the input tangent t = ones (linearize's "
                         "tangent is given later).")
        return [np.ones_like(z) if z is not None else None for z in zeros]
    first = next((i for i, z in enumerate(zeros) if z is not None and z.size), None)
    if first is not None:
        zeros[first].reshape(-1)[0] = 1
    if fi.kind == "hessian":
        _selection(walk, "hessian = jacfwd(jacrev(f)): the forward half's tangents are along "
                         "e0, the first basis vector of the inputs (column 0 of the Hessian "
                         "differentiates the backward pass along it); the backward pass is "
                         "grad(f) at the point.")
    else:
        _selection(walk, "Tangents shown along e0, the first basis vector of the inputs: "
                         "column 0 of the Jacobian.")
    return zeros
