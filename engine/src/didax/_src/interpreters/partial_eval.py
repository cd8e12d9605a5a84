"""Staging and partial evaluation: the traces that build jaxprs.

- `DynamicJaxprTrace` stages every primitive it sees into a jaxpr (omnistaging: nothing is
  evaluated, not even operations on constants). `make_jaxpr` and `jit` use it.
- `JaxprTrace` is partial evaluation: inputs that are its own tracers are *unknown* and their
  equations are staged; everything else is *known* and is computed by the parent trace.
  `linearize`/`vjp` unzip a JVP this way into primal (known) and linear (unknown) parts.
- `partial_eval_jaxpr_nounits` splits a jaxpr into a known jaxpr and an unknown one joined by
  residuals (the rule higher-order primitives use), and `dce_jaxpr` removes dead equations.

Rule tables owned here: `partial_eval_rules`, `dce_rules`, `effects_rules`,
`custom_staging_rules`. May import core, util, source_info, errors.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from didax._src import core, source_info
from didax._src.core import (
    ClosedJaxpr,
    DropVar,
    Jaxpr,
    JaxprEqn,
    Literal,
    Primitive,
    Trace,
    Tracer,
    Var,
    get_aval,
    set_current_trace,
)
from didax._src.util import partition_list

# prim -> rule(trace: JaxprTrace, *args, **params) -> outs   (args mix known values and
# the trace's unknown tracers)
partial_eval_rules: dict[Primitive, Callable] = {}
# prim -> rule(used_outputs: list[bool], eqn) -> (used_inputs: list[bool], new_eqn | None)
dce_rules: dict[Primitive, Callable] = {}
# prim -> rule(**params) -> frozenset of effects (default: no effects)
effects_rules: dict[Primitive, Callable] = {}
# prim -> rule(trace: DynamicJaxprTrace, *args, **params) -> outs
custom_staging_rules: dict[Primitive, Callable] = {}


class DynamicJaxprTracer(Tracer):
    # (`_var`, not `var`: `x.var()` is the array method, as on JAX's tracers)
    __slots__ = ("aval", "_var", "_origin")

    def __init__(self, trace, aval, var, origin=None):
        self._trace = trace
        self.aval = aval
        self._var = var
        self._origin = origin

    def __repr__(self):
        w = "~" if getattr(self.aval, "weak_type", False) else ""
        return f"JitTracer({w}{_long_aval(self.aval)})"


class JaxprTracer(DynamicJaxprTracer):
    """A tracer of partial evaluation (`JaxprTrace`): an unknown value being staged."""

    __slots__ = ()

    def __repr__(self):
        return f"Traced<{self.aval}:JaxprTrace>"


def _long_aval(aval) -> str:
    dt = getattr(aval, "dtype", None)
    if dt is None:
        return aval.str_short()
    return f"{dt.name}[{','.join(map(str, aval.shape))}]"


class DynamicJaxprTrace(Trace):
    """Stages everything into a jaxpr under construction."""

    __slots__ = ("eqns", "invars", "constvars", "consts", "_const_ids", "debug_desc",
                 "finished", "effects", "record_source")
    tracer_cls: type = DynamicJaxprTracer

    def __init__(self, debug_desc: str = "make_jaxpr", parent_trace=None):
        self.parent_trace = parent_trace
        self.eqns: list[JaxprEqn] = []
        self.invars: list[Var] = []
        self.constvars: list[Var] = []
        self.consts: list[Any] = []
        self._const_ids: dict[int, Var] = {}
        self.debug_desc = debug_desc
        self.finished = False
        self.effects: set = set()
        self.record_source = True

    # --- atoms
    def new_arg(self, aval) -> DynamicJaxprTracer:
        v = Var(aval)
        self.invars.append(v)
        return self.tracer_cls(self, aval, v)

    def const_atom(self, val) -> core.Atom:
        if core.is_literalable(val):
            return Literal(core.literal_value(val), get_aval(val))
        if isinstance(val, Tracer) and getattr(val._trace, "finished", False):
            raise core.escaped_tracer_error(val)
        key = id(val)
        v = self._const_ids.get(key)
        if v is None:
            v = self._const_ids[key] = Var(get_aval(val))
            self.constvars.append(v)
            self.consts.append(val)
        return v

    def to_atom(self, x) -> core.Atom:
        if type(x) is self.tracer_cls and x._trace is self:
            return x._var
        return self.const_atom(x)

    # --- staging
    def process_primitive(self, primitive, args, params):
        rule = custom_staging_rules.get(primitive)
        if rule is not None:
            return rule(self, *args, **params)
        return self.default_process_primitive(primitive, args, params)

    def default_process_primitive(self, primitive, args, params):
        atoms = [self.to_atom(x) for x in args]
        out_aval = primitive.abstract_eval(*[a.aval for a in atoms], **params)
        return self.emit(primitive, atoms, out_aval, params)

    def emit(self, primitive, atoms, out_aval, params):
        """Appends an equation; returns the tracer(s) of its outputs."""
        eff_rule = effects_rules.get(primitive)
        effects = eff_rule(**params) if eff_rule is not None else frozenset()
        if effects:
            self.effects.update(effects)
        src = core.current_source_info() if self.record_source else None
        tag = core.tag_state.tag
        if primitive.multiple_results:
            outvars = [Var(a) for a in out_aval]
            self.eqns.append(JaxprEqn(atoms, outvars, primitive, params, effects, src, tag))
            cls = self.tracer_cls
            return [cls(self, a, v, src) for a, v in zip(out_aval, outvars)]
        v = Var(out_aval)
        self.eqns.append(JaxprEqn(atoms, [v], primitive, params, effects, src, tag))
        return self.tracer_cls(self, out_aval, v, src)

    def process_custom_jvp_call(self, primitive, fun, jvp, args, *, symbolic_zeros):
        rule = custom_staging_rules[primitive]
        return rule(self, fun, jvp, args, symbolic_zeros=symbolic_zeros)

    def process_custom_vjp_call(self, primitive, fun, fwd, bwd, args, *, out_trees,
                                symbolic_zeros):
        rule = custom_staging_rules[primitive]
        return rule(self, fun, fwd, bwd, args, out_trees=out_trees,
                    symbolic_zeros=symbolic_zeros)

    # --- finishing
    def to_jaxpr(self, out_tracers: Sequence[Any]) -> tuple[Jaxpr, list[Any]]:
        outvars = [self.to_atom(x) for x in out_tracers]
        jaxpr = Jaxpr(self.constvars, self.invars, outvars, self.eqns, frozenset(self.effects))
        self.finished = True
        return jaxpr, list(self.consts)


def trace_to_jaxpr_dynamic(fun: Callable, in_avals: Sequence[Any], debug_desc="make_jaxpr",
                           ) -> tuple[Jaxpr, list[Any], list[Any]]:
    """Traces fun(*flat args) -> flat outs to (jaxpr, out_avals, consts)."""
    trace = DynamicJaxprTrace(debug_desc, parent_trace=core.trace_ctx.trace)
    in_tracers = [trace.new_arg(a) for a in in_avals]
    # Equations record where they were made relative to this trace (as JAX resets the name
    # stack and opens a TracebackScope), so a jaxpr's metadata never names its caller.
    with set_current_trace(trace), source_info.set_name_stack(source_info.EMPTY_NAME_STACK), \
            source_info.traceback_scope():
        outs = fun(*in_tracers)
    jaxpr, consts = trace.to_jaxpr(outs)
    return jaxpr, [v.aval for v in jaxpr.outvars], consts


def trace_to_closed_jaxpr(fun: Callable, in_avals, debug_desc="make_jaxpr") -> ClosedJaxpr:
    jaxpr, _, consts = trace_to_jaxpr_dynamic(fun, in_avals, debug_desc)
    return ClosedJaxpr(jaxpr, consts)


def convert_constvars_jaxpr(jaxpr: Jaxpr) -> Jaxpr:
    """Constvars become leading invars."""
    return jaxpr.replace(constvars=[], invars=[*jaxpr.constvars, *jaxpr.invars])


def close_over_consts(closed: ClosedJaxpr) -> tuple[ClosedJaxpr, list[Any]]:
    """Splits consts that are tracers (of enclosing traces) out as explicit inputs, so a
    higher-order primitive can take them as arguments; concrete consts stay closed over."""
    jaxpr = closed.jaxpr
    is_tracer = [isinstance(c, Tracer) for c in closed.consts]
    if not any(is_tracer):
        return closed, []
    keep_vars, lift_vars = partition_list(is_tracer, jaxpr.constvars)
    keep_vals, lift_vals = partition_list(is_tracer, closed.consts)
    new = jaxpr.replace(constvars=keep_vars, invars=[*lift_vars, *jaxpr.invars])
    return ClosedJaxpr(new, keep_vals), lift_vals


# ----------------------------------------------------------------------------------------
# Partial evaluation
# ----------------------------------------------------------------------------------------


class JaxprTrace(DynamicJaxprTrace):
    """Partial evaluation: own tracers are unknown, everything else is known.

    With `stack_prefix` n, staged equations record their name stack without its first n
    entries (JAX's LinearizeTrace: a linear program's equations carry the name stack
    relative to where linearization began, so transposing them later under the caller's
    stack prints `vmap(transpose(jvp(f)))`, not the caller's entries twice)."""

    __slots__ = ("stack_prefix",)
    tracer_cls = JaxprTracer

    def __init__(self, parent_trace, debug_desc: str = "partial_eval", stack_prefix: int = 0):
        super().__init__(debug_desc, parent_trace)
        # Source locations only matter when the result is itself being staged.
        self.record_source = parent_trace is not core.eval_trace
        self.stack_prefix = stack_prefix

    def emit(self, primitive, atoms, out_aval, params):
        if not self.stack_prefix or not self.record_source:
            return super().emit(primitive, atoms, out_aval, params)
        stack = source_info.current_name_stack()
        with source_info.set_name_stack(stack[self.stack_prefix:]):
            return super().emit(primitive, atoms, out_aval, params)

    def is_unknown(self, x) -> bool:
        return type(x) is JaxprTracer and x._trace is self

    def process_primitive(self, primitive, args, params):
        for x in args:
            if type(x) is JaxprTracer and x._trace is self:
                break
        else:
            # Everything is known: the parent computes it. (The parent's own processing
            # sets the current trace wherever its rules bind further primitives.)
            return self.parent_trace.process_primitive(primitive, args, params)
        rule = partial_eval_rules.get(primitive)
        if rule is not None:
            return rule(self, *args, **params)
        return self.default_process_primitive(primitive, args, params)

    def instantiate(self, x) -> JaxprTracer:
        """Makes x unknown (a known value becomes a residual read by the staged program)."""
        if self.is_unknown(x):
            return x
        atom = self.const_atom(x)
        return JaxprTracer(self, atom.aval, atom)

    def process_custom_jvp_call(self, primitive, fun, jvp, args, *, symbolic_zeros):
        if not any(self.is_unknown(x) for x in args):
            with set_current_trace(self.parent_trace):
                return primitive.bind_custom_jvp(fun, jvp, args, symbolic_zeros)
        return partial_eval_rules[primitive](self, fun, jvp, args,
                                             symbolic_zeros=symbolic_zeros)

    def process_custom_vjp_call(self, primitive, fun, fwd, bwd, args, *, out_trees,
                                symbolic_zeros):
        if not any(self.is_unknown(x) for x in args):
            with set_current_trace(self.parent_trace):
                return primitive.bind_custom_vjp(fun, fwd, bwd, args, symbolic_zeros)
        return partial_eval_rules[primitive](self, fun, fwd, bwd, args, out_trees=out_trees,
                                             symbolic_zeros=symbolic_zeros)


def partial_eval_jaxpr_nounits(
    closed: ClosedJaxpr, unknowns: Sequence[bool], instantiate: bool | Sequence[bool]
) -> tuple[ClosedJaxpr, ClosedJaxpr, list[bool], list[Any]]:
    """Splits `closed` given which inputs are unknown.

    Returns (jaxpr_known, jaxpr_unknown, out_unknowns, res_avals):
      jaxpr_known:   known inputs -> known outputs + residuals
      jaxpr_unknown: residuals + unknown inputs -> unknown outputs
    """
    if isinstance(instantiate, bool):
        instantiate = [instantiate] * len(closed.jaxpr.outvars)
    in_avals = closed.in_avals
    known_avals = [a for a, u in zip(in_avals, unknowns) if not u]
    cell: dict[str, Any] = {}

    def fun_known(*known_args):
        pe_trace = JaxprTrace(core.trace_ctx.trace, "partial_eval_jaxpr")
        known_iter = iter(known_args)
        args = [pe_trace.new_arg(a) if u else next(known_iter) for a, u in zip(in_avals, unknowns)]
        with set_current_trace(pe_trace):
            outs = core.eval_jaxpr(closed.jaxpr, closed.consts, *args)
        out_unknowns = [pe_trace.is_unknown(o) or inst for o, inst in zip(outs, instantiate)]
        unknown_outs = [pe_trace.instantiate(o) for o, u in zip(outs, out_unknowns) if u]
        jaxpr_unknown, residuals = pe_trace.to_jaxpr(unknown_outs)
        cell.update(jaxpr_unknown=jaxpr_unknown, out_unknowns=out_unknowns,
                    num_res=len(residuals))
        known_outs = [o for o, u in zip(outs, out_unknowns) if not u]
        return [*known_outs, *residuals]

    jaxpr_known, _, consts_known = trace_to_jaxpr_dynamic(fun_known, known_avals,
                                                          "partial_eval_jaxpr")
    jaxpr_unknown = convert_constvars_jaxpr(cell["jaxpr_unknown"])
    num_res = cell["num_res"]
    res_avals = [v.aval for v in jaxpr_known.outvars[len(jaxpr_known.outvars) - num_res:]]
    return (ClosedJaxpr(jaxpr_known, consts_known), ClosedJaxpr(jaxpr_unknown, ()),
            cell["out_unknowns"], res_avals)


# ----------------------------------------------------------------------------------------
# Dead-code elimination
# ----------------------------------------------------------------------------------------


def has_effects(eqn: JaxprEqn) -> bool:
    return bool(eqn.effects)


def dce_jaxpr(jaxpr: Jaxpr, used_outputs: Sequence[bool] | None = None,
              instantiate: bool | Sequence[bool] = False) -> tuple[Jaxpr, list[bool]]:
    """Removes equations whose outputs are unused (effectful ones stay). Returns the new
    jaxpr (outputs restricted to used ones) and which invars it still uses."""
    if used_outputs is None:
        used_outputs = [True] * len(jaxpr.outvars)
    if isinstance(instantiate, bool):
        instantiate = [instantiate] * len(jaxpr.invars)
    used: set = {v for v, u in zip(jaxpr.outvars, used_outputs) if u and type(v) is Var}
    new_eqns = []
    for eqn in reversed(jaxpr.eqns):
        outs_used = [type(v) is not DropVar and v in used for v in eqn.outvars]
        rule = dce_rules.get(eqn.primitive)
        if rule is not None:
            ins_used, new_eqn = rule(outs_used, eqn)
            if new_eqn is None:
                continue
            new_eqns.append(new_eqn)
            used.update(a for a, u in zip(eqn.invars, ins_used) if u and type(a) is Var)
            continue
        if not any(outs_used) and not has_effects(eqn):
            continue
        new_eqns.append(eqn)
        used.update(a for a in eqn.invars if type(a) is Var)
    new_eqns.reverse()
    used_inputs = [v in used or inst for v, inst in zip(jaxpr.invars, instantiate)]
    new_jaxpr = jaxpr.replace(
        invars=[v for v, u in zip(jaxpr.invars, used_inputs) if u],
        outvars=[v for v, u in zip(jaxpr.outvars, used_outputs) if u],
        eqns=new_eqns,
        constvars=[v for v in jaxpr.constvars if v in used],
    )
    return new_jaxpr, used_inputs


def dce_closed_jaxpr(closed: ClosedJaxpr, used_outputs: Sequence[bool] | None = None,
                     instantiate: bool | Sequence[bool] = False
                     ) -> tuple[ClosedJaxpr, list[bool]]:
    jaxpr = closed.jaxpr
    new_jaxpr, used_inputs = dce_jaxpr(jaxpr, used_outputs, instantiate)
    keep = set(new_jaxpr.constvars)
    consts = [c for v, c in zip(jaxpr.constvars, closed.consts) if v in keep]
    return ClosedJaxpr(new_jaxpr, consts), used_inputs
