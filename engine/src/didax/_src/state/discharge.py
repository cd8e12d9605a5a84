"""State discharge: a jaxpr that touches refs becomes a pure jaxpr (JAX's
`discharge_state`), and the jit calls built on it.

`discharge_state(closed, should_discharge)` re-traces `closed` with each discharged ref
input taken as its value: `get` reads the value, `swap`/`addupdate` replace it with an
updated one, a `new_ref` inside is just its initial value and `freeze` its current one; a
nested `jit` is discharged in turn (its refs become inputs and extra outputs). The pure
jaxpr returns the original outputs followed by each discharged ref's final value.

A jitted function touching refs runs as that pure program:
- eagerly (`call`): the refs' buffers go in, the final values are written back into the
  refs, so the caller sees them updated in place;
- under a transformation (`bind`): the refs are read, the pure program is bound, and its
  final values are written back with `swap`, whose JVP and batching rules decide whether
  the write is allowed (JAX's errors for differentiated or batched values written into
  refs from outside the transformation).

Rule table owned here: `discharge_rules` (rule(eqn, invals, discharged) -> (new values
of the discharged inputs, outputs)). Installs `pjit.state_hooks`. May import core,
the interpreters, pjit and state.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from didax._src import core, pjit, source_info
from didax._src.core import ClosedJaxpr, Jaxpr, Literal, Primitive, Var
from didax._src.interpreters import partial_eval as pe
from didax._src.state import primitives as sp
from didax._src.state import types as st
from didax._src.state.types import Ref, RefEffect, is_ref, lift_ref_consts

discharge_rules: dict[Primitive, Callable] = {}
memoized = pjit._memoized  # (stable jaxprs keep the compile caches warm)


def discharge_state(closed: ClosedJaxpr, should_discharge: Sequence[bool]) -> ClosedJaxpr:
    """The pure jaxpr of closed: discharged ref inputs become values, and their final
    values are appended to the outputs. Refs it closes over must have been lifted to
    inputs first (`lift_ref_consts`)."""
    should = list(should_discharge)
    in_avals = [a.inner_aval if d else a for a, d in zip(closed.in_avals, should)]

    def fun(*args):
        outs, finals = eval_discharged(closed.jaxpr, closed.consts, args, should)
        return [*outs, *finals]

    return pe.trace_to_closed_jaxpr(fun, in_avals, "discharge")


def eval_discharged(jaxpr: Jaxpr, consts, args, should) -> tuple[list, list]:
    """Evaluates jaxpr under the current trace with the discharged refs as values."""
    env: dict[Var, Any] = dict(zip(jaxpr.constvars, consts))
    env.update(zip(jaxpr.invars, args))
    discharged = {v for v, d in zip(jaxpr.invars, should) if d}

    def read(a):
        return a.val if type(a) is Literal else env[a]

    for eqn in jaxpr.eqns:
        invals = [read(a) for a in eqn.invars]
        flags = [type(a) is Var and a in discharged for a in eqn.invars]
        with source_info.source_info_override(eqn.source_info):
            if eqn.primitive is sp.new_ref_p:
                env[eqn.outvars[0]] = invals[0]
                discharged.add(eqn.outvars[0])
                continue
            if any(flags) or _allocates(eqn):
                new_vals, ans = _rule(eqn)(eqn, invals, flags)
                for a, nv in zip(eqn.invars, new_vals):
                    if nv is not None:
                        env[a] = nv
            else:
                ans = eqn.primitive.bind(*invals, **eqn.params)
        outs = ans if eqn.primitive.multiple_results else [ans]
        env.update(zip(eqn.outvars, outs))
    finals = [env[v] for v, d in zip(jaxpr.invars, should) if d]
    return [read(a) for a in jaxpr.outvars], finals


def _allocates(eqn) -> bool:
    """A higher-order equation whose inner program allocates refs of its own."""
    return eqn.primitive in discharge_rules and any(type(e) is RefEffect
                                                   for e in eqn.effects)


def bind_refs(prim: Primitive, args: Sequence[Any], params: dict) -> list:
    """Binds a higher-order primitive with ref operands under a transformation
    (state.types.bind): each ref read whole, the discharged primitive bound on the values,
    the final values written back (reads and writes go through the transformation's rules:
    a batched ref is read and written batched, a cell directly)."""
    var_of: dict[int, Var] = {}
    flags = [is_ref(a) for a in args]
    invars = [var_of.setdefault(id(a), Var(core.get_aval(a))) if f
              else Var(core.get_aval(a)) for a, f in zip(args, flags)]
    eqn = core.new_eqn(invars, [], prim, params)
    vals = [sp.get_p.bind(a, indexer=None) if f else a for a, f in zip(args, flags)]
    new_vals, outs = _rule(eqn)(eqn, vals, flags)
    written: set[int] = set()
    for a, f, v in zip(args, flags, new_vals):
        if f and v is not None and id(a) not in written:
            written.add(id(a))
            sp.swap_p.bind(a, v, indexer=None)
    return outs


def _rule(eqn) -> Callable:
    rule = discharge_rules.get(eqn.primitive)
    if rule is None:
        raise NotImplementedError(
            f"'{eqn.primitive}' with a mutable array reference (jax.new_ref) operand is not "
            "supported in didax (refs inside lax.cond, lax.scan, lax.while_loop, "
            "custom_jvp/vjp, ...); read the ref before it (v = ref[...]), pass and return "
            "the value, and write it back after (ref[...] = new_v)")
    return rule


def _get_discharge(eqn, invals, flags):
    ref, *idx = invals
    return [None] * len(invals), sp.read(ref, eqn.params["indexer"], idx)


def _swap_discharge(eqn, invals, flags):
    ref, val, *idx = invals
    indexer = eqn.params["indexer"]
    old = sp.read(ref, indexer, idx)
    new = sp.write(ref, indexer, idx, val, add=False)
    return [new] + [None] * (len(invals) - 1), old


def _addupdate_discharge(eqn, invals, flags):
    ref, val, *idx = invals
    new = sp.write(ref, eqn.params["indexer"], idx, val, add=True)
    return [new] + [None] * (len(invals) - 1), []


def _freeze_discharge(eqn, invals, flags):
    return [None], invals[0]


def _jit_discharge(eqn, invals, flags):
    params = eqn.params
    inner = params["jaxpr"]
    pure = pjit._memoized("discharge", inner, tuple(flags),
                          lambda: discharge_state(inner, flags))
    outs = pjit.jit_p.bind(*invals, jaxpr=pure, name=params["name"],
                           donated_invars=(False,) * len(invals),
                           keep_unused=params["keep_unused"], inline=params["inline"])
    n = len(inner.out_avals)
    finals = iter(outs[n:])
    return [next(finals) if f else None for f in flags], outs[:n]


discharge_rules[sp.get_p] = _get_discharge
discharge_rules[sp.swap_p] = _swap_discharge
discharge_rules[sp.addupdate_p] = _addupdate_discharge
discharge_rules[sp.freeze_p] = _freeze_discharge
discharge_rules[pjit.jit_p] = _jit_discharge


# ----------------------------------------------------------------------------------------
# Jitted calls with refs
# ----------------------------------------------------------------------------------------


def _prepare(closed: ClosedJaxpr, flat: Sequence[Any]):
    lifted, refs = pjit._memoized("lift_refs", closed, None, lambda: lift_ref_consts(closed))
    args = [*flat, *refs]
    should = tuple(is_ref(a) for a in args)
    pure = pjit._memoized("discharge", lifted, should,
                          lambda: discharge_state(lifted, should))
    return pure, args, should


def call(closed: ClosedJaxpr, flat: Sequence[Any], name: str, keep_unused: bool) -> list:
    """Runs a jitted program touching refs eagerly: the refs' buffers in, the final
    values written back into the refs."""
    pure, args, should = _prepare(closed, flat)
    for a in args:
        if type(a) is Ref and a.owner is not None:  # a cell at top level: no transformation
            raise core.escaped_tracer_error(a._buf)
    vals = [a._buf if s else a for a, s in zip(args, should)]
    exe = pjit.compiled_for_jaxpr(pure, name, keep_unused)
    outs = exe.call(vals)
    n = len(outs) - sum(should)
    for ref, val in zip([a for a, s in zip(args, should) if s], outs[n:]):
        ref._buf = val
    return outs[:n]


def bind(closed: ClosedJaxpr, flat: Sequence[Any], name: str, keep_unused: bool,
         inline: bool) -> list:
    """A jitted program touching refs under a transformation: read the refs, bind the pure
    program, write the final values back (through the transformation's rules)."""
    pure, args, should = _prepare(closed, flat)
    vals = [sp.get_p.bind(a, indexer=None) if s else a for a, s in zip(args, should)]
    outs = pjit.jit_p.bind(*vals, jaxpr=pure, name=name,
                           donated_invars=(False,) * len(vals), keep_unused=keep_unused,
                           inline=inline)
    n = len(outs) - sum(should)
    for ref, val in zip([a for a, s in zip(args, should) if s], outs[n:]):
        sp.swap_p.bind(ref, val, indexer=None)
    return outs[:n]


pjit.state_hooks.update(call=call, bind=bind)
st.ops["bind_refs"] = bind_refs
