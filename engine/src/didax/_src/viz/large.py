"""Programs larger than a card can show: the card shows the first K top-level equations
(K such that they and everything nested in them fit the size budget) and the rest is one
line of the jaxpr text, `… N more equations (card trimmed) …`, with a `card_trimmed` notice.
Recording then costs what the shown part costs: only it is walked equation by equation.

Reverse mode stays exact: the equations beyond the shown ones come after them, so in the
backward pass they are transposed first. Their effect is one step, the first backward step
(`from_eqn` null): the VJP of the cut-off tail (a jaxpr of the remaining equations, its
inputs the shown variables it reads) from the output seed, sending each shown variable what
the tail contributes to it. The shown equations then transpose as usual, and every input's
last partial sum is still `jax.grad`'s.

May import core, interpreters, viz.walk.
"""

from __future__ import annotations

from didax._src import core
from didax._src.core import ClosedJaxpr, Jaxpr, Literal
from didax._src.interpreters import tape

# Bytes a shown equation takes on a card, roughly (eqn data, values, steps; reverse mode
# adds cotangents and contributions).
BYTES_PER_EQN = {"forward": 1500, "reverse": 4000}


def count_eqns(jaxpr: Jaxpr) -> int:
    """Equations of jaxpr, nested ones included."""
    return sum(1 + sum(count_eqns(j) for j in core.jaxprs_in_params(e.params))
               for e in jaxpr.eqns)


def shown_count(jaxpr: Jaxpr, reverse: bool, max_bytes: int) -> int:
    """How many top-level equations the card shows (all of them when they fit)."""
    limit = max(1, max_bytes // BYTES_PER_EQN["reverse" if reverse else "forward"])
    used = 0
    for k, e in enumerate(jaxpr.eqns):
        used += 1 + sum(count_eqns(j) for j in core.jaxprs_in_params(e.params))
        if used > limit:
            return k
    return len(jaxpr.eqns)


def head(closed: ClosedJaxpr, k: int) -> ClosedJaxpr:
    """The first k equations as a program with no outputs (what the card shows)."""
    j = closed.jaxpr
    return ClosedJaxpr(Jaxpr(j.constvars, j.invars, [], j.eqns[:k], j.effects), closed.consts)


def head_text(jd: dict, k: int, total: int) -> None:
    """Marks the cut in the shown program's text (after its last shown equation)."""
    end = jd["eqns"][-1]["span"]["end"] if jd["eqns"] else jd["text"].find("let") + 3
    jd["text"] = (jd["text"][:end] + f"\n    … {total - k} more equations (card trimmed) …"
                  "\n  in (…) }")


def notice(k: int, total: int, eqns) -> dict:
    from collections import Counter  # noqa: PLC0415

    most = ", ".join(f"{n} {p}" for p, n in
                     Counter(e.primitive.name for e in eqns[k:]).most_common(3))
    return {"kind": "card_trimmed", "eqn_id": None,
            "message": f"card trimmed to its size budget: the first {k} of {total} equations "
                       f"are shown; the other {total - k} ({most}, …) are one line of the "
                       "text and, backward, one step"}


def tail(closed: ClosedJaxpr, k: int, env: dict):
    """(frontier vars, their values, outputs, pullback) of the equations after the first k:
    the frontier is every shown variable the tail or the outputs read."""
    j = closed.jaxpr
    defined = set(j.invars)
    for e in j.eqns[:k]:
        defined.update(v for v in e.outvars if type(v) is not core.DropVar)
    read = [a for e in j.eqns[k:] for a in e.invars] + list(j.outvars)
    frontier = list(dict.fromkeys(a for a in read if type(a) is not Literal and a in defined))
    rest = Jaxpr(j.constvars, frontier, j.outvars, j.eqns[k:], j.effects)

    def run(*xs):
        return core.eval_jaxpr(rest, closed.consts, *xs)

    vals = [env[v] for v in frontier]
    outs, f_vjp = tape.vjp_flat(run, vals)
    return frontier, outs, f_vjp
