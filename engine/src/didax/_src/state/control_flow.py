"""State discharge of the control-flow primitives, as JAX's rules do it: a ref a loop or
a branch reads or writes (always a constant operand: refs cannot be carried, scanned over
or returned) becomes a value threaded through it.

- `scan`: each ref constant becomes a leading carry; the discharged body returns its
  final value as that carry;
- `while`: each distinct ref the predicate or the body uses becomes a leading carry, read
  by the predicate and updated by the body;
- `cond`: every branch is discharged alike and returns the refs' final values as extra
  outputs.

Writes `discharge.discharge_rules`. May import core, the interpreters, lax.control_flow,
state.
"""

from __future__ import annotations

from didax._src import core
from didax._src.core import ClosedJaxpr
from didax._src.interpreters import partial_eval as pe
from didax._src.lax.control_flow.conditionals import cond_p
from didax._src.lax.control_flow.loops import while_p
from didax._src.lax.control_flow.scan import scan_p
from didax._src.state import discharge
from didax._src.util import merge_lists, partition_list, split_list


def _no_carried_refs(name: str, flags) -> None:
    if any(flags):
        raise NotImplementedError(
            f"a mutable array reference as a carry or scanned-over input of {name} is not "
            "supported (in JAX either); close over the ref instead")


def _discharged(closed: ClosedJaxpr, flags) -> ClosedJaxpr:
    flags = tuple(flags)
    return discharge.memoized("discharge", closed, flags,
                              lambda: discharge.discharge_state(closed, flags))


def _refs_to_front(pure: ClosedJaxpr, ref_flags) -> ClosedJaxpr:
    """pure takes [consts (refs among them, per ref_flags), rest] and returns [outs,
    finals]; the result takes [non-ref consts, ref values, rest] and returns [finals,
    outs]."""
    n_consts = len(ref_flags)
    n_ref = sum(ref_flags)
    avals = pure.in_avals
    c_avals, rest_avals = avals[:n_consts], avals[n_consts:]
    nonref_avals, ref_avals = partition_list(ref_flags, c_avals)

    def fun(*args):
        nonref, refv, rest = split_list(list(args), [len(nonref_avals), n_ref])
        consts = merge_lists(ref_flags, nonref, refv)
        outs = core.eval_jaxpr(pure.jaxpr, pure.consts, *consts, *rest)
        n = len(outs) - n_ref
        return [*outs[n:], *outs[:n]]

    return pe.trace_to_closed_jaxpr(fun, [*nonref_avals, *ref_avals, *rest_avals],
                                    "discharge")


def _scan_discharge(eqn, invals, flags):
    p = eqn.params
    nc = p["num_consts"]
    _no_carried_refs("scan", flags[nc:])
    ref_flags = list(flags[:nc])
    body = p["jaxpr"]
    pure = _discharged(body, ref_flags + [False] * (len(flags) - nc))
    new_body = discharge.memoized("scan_refs", pure, tuple(ref_flags),
                                  lambda: _refs_to_front(pure, ref_flags))
    nonref, refv = partition_list(ref_flags, invals[:nc])
    outs = scan_p.bind(*nonref, *refv, *invals[nc:], reverse=p["reverse"],
                       length=p["length"], jaxpr=new_body, num_consts=len(nonref),
                       num_carry=len(refv) + p["num_carry"], unroll=p["unroll"])
    finals = iter(outs[:len(refv)])
    return [next(finals) if f else None for f in flags], outs[len(refv):]


def _cond_discharge(eqn, invals, flags):
    _no_carried_refs("cond (as its index)", flags[:1])
    op_flags = tuple(flags[1:])
    branches = tuple(_discharged(b, op_flags) for b in eqn.params["branches"])
    outs = cond_p.bind(*invals, branches=branches)
    n = len(outs) - sum(op_flags)
    finals = iter(outs[n:])
    return [None] + [next(finals) if f else None for f in op_flags], outs[:n]


def _while_discharge(eqn, invals, flags):
    p = eqn.params
    ncc, nbc = p["cond_nconsts"], p["body_nconsts"]
    _no_carried_refs("while_loop", flags[ncc + nbc:])
    # the distinct refs (by the outer variable) the predicate and the body use
    slots: dict = {}
    for a, f in zip(eqn.invars[:ncc + nbc], flags):
        if f:
            slots.setdefault(a, len(slots))
    where = [slots[a] if f else None for a, f in zip(eqn.invars[:ncc + nbc], flags)]
    first = {s: i for i, s in reversed(list(enumerate(where))) if s is not None}
    refv = [invals[first[s]] for s in range(len(slots))]
    cond_j, body_j = _while_jaxprs(p, where, len(slots))
    cc, bc, init = split_list(list(invals), [ncc, nbc])
    cc = [x for x, s in zip(cc, where[:ncc]) if s is None]
    bc = [x for x, s in zip(bc, where[ncc:]) if s is None]
    outs = while_p.bind(*cc, *bc, *refv, *init, cond_nconsts=len(cc), cond_jaxpr=cond_j,
                        body_nconsts=len(bc), body_jaxpr=body_j)
    finals = outs[:len(slots)]
    return [None if s is None else finals[s] for s in where] + [None] * len(init), \
        outs[len(slots):]


def _while_jaxprs(p, where, n_slots):
    key = (tuple(where), n_slots)
    return discharge.memoized("while_refs", p["body_jaxpr"], key,
                              lambda: _make_while_jaxprs(p, where, n_slots))


def _make_while_jaxprs(p, where, n_slots):
    """(predicate, body) taking [own non-ref consts, ref values, carry]; the body returns
    [ref finals, carry]."""
    ncc = p["cond_nconsts"]
    cond_where, body_where = where[:ncc], where[ncc:]
    cond_pure = _discharged(p["cond_jaxpr"], [s is not None for s in cond_where]
                            + [False] * (len(p["cond_jaxpr"].in_avals) - ncc))
    body_pure = _discharged(p["body_jaxpr"], [s is not None for s in body_where]
                            + [False] * (len(p["body_jaxpr"].in_avals) - len(body_where)))
    ref_avals = [None] * n_slots
    for s, a in zip(where, [*p["cond_jaxpr"].in_avals[:ncc],
                            *p["body_jaxpr"].in_avals[:len(body_where)]]):
        if s is not None:
            ref_avals[s] = a.inner_aval
    carry_avals = p["body_jaxpr"].out_avals

    def make(pure, own_where, returns_refs):
        own_avals = [a for a, s in zip(pure.in_avals, own_where) if s is None]

        def fun(*args):
            own, refv, carry = split_list(list(args), [len(own_avals), n_slots])
            it = iter(own)
            consts = [next(it) if s is None else refv[s] for s in own_where]
            outs = core.eval_jaxpr(pure.jaxpr, pure.consts, *consts, *carry)
            n = len(outs) - sum(s is not None for s in own_where)
            if not returns_refs:
                return outs[:n]
            new_refv = list(refv)
            for s, v in zip([s for s in own_where if s is not None], outs[n:]):
                new_refv[s] = v
            return [*new_refv, *outs[:n]]

        return pe.trace_to_closed_jaxpr(fun, [*own_avals, *ref_avals, *carry_avals],
                                        "discharge")

    return make(cond_pure, cond_where, False), make(body_pure, body_where, True)


discharge.discharge_rules[scan_p] = _scan_discharge
discharge.discharge_rules[cond_p] = _cond_discharge
discharge.discharge_rules[while_p] = _while_discharge
