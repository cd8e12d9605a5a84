"""Automatic differentiation: forward mode (JVP), linearization and transposition.

- `JVPTrace`/`JVPTracer` carry (primal, tangent) pairs; tangents may be symbolic `Zero`s,
  which are never materialized unless a consumer needs an array.
- `linearize` runs the JVP under partial evaluation (`partial_eval.JaxprTrace`): primal work
  is known and runs eagerly in the enclosing trace, tangent work is unknown and is staged
  into a *linear* jaxpr whose constvars are the residuals.
- `backward_pass` transposes a linear jaxpr, equation by equation in reverse, accumulating
  cotangents with `add_any`; zero cotangents stay symbolic so dead branches cost nothing.

Rule tables owned here: `primitive_jvps`, `primitive_transposes`. Rule helpers: `defjvp`,
`defjvp2`, `deflinear`, `defbilinear`. May import core, util, partial_eval.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from didax._src import core, dtypes
from didax._src.core import Jaxpr, Literal, Primitive, Trace, Tracer, get_aval, set_current_trace
from didax._src.interpreters import partial_eval as pe

# prim -> rule(primals, tangents, **params) -> (primal_out, tangent_out)
primitive_jvps: dict[Primitive, Callable] = {}
# prim -> rule(ct, *args, **params) -> list of cts per arg (None for non-linear args);
# linear args arrive as UndefinedPrimal(aval)
primitive_transposes: dict[Primitive, Callable] = {}

# What the eager tape (interpreters/tape.py) reads to pull back without linearizing:
# prim -> "joint" (linear in all its arguments together) or "each" (in each one separately,
# the others fixed): its transpose rule is then its VJP.
linearity: dict[Primitive, str] = {}
# prim -> (one JVP function per argument, whether each also takes the output): `defjvp`'s
jvp_fns: dict[Primitive, tuple[tuple, bool]] = {}
# pointwise primitives (elementwise: each output element depends on the same-position
# input elements only), and primitives whose derivative is a symbolic zero
pointwise: set[Primitive] = set()
zero_jvp: set[Primitive] = set()

# Installed by didax.lax (which sits above this module): builds a zero array of an aval.
zeros_like_aval_impl: Callable | None = None
# The `add_any` primitive used to accumulate tangents and cotangents; its rules are
# declared with the other primitives in didax.lax.
add_jaxvals_p = Primitive("add_any")


class Zero:
    """A symbolic zero tangent/cotangent of a given aval."""

    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval

    @staticmethod
    def from_primal_value(x) -> Zero:
        return Zero(get_aval(x).to_tangent_aval())

    def __repr__(self):
        return f"Zero({self.aval})"


class UndefinedPrimal:
    """Marks a linear input of an equation being transposed."""

    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval

    def __repr__(self):
        return f"UndefinedPrimal({self.aval})"


def is_undefined_primal(x) -> bool:
    return type(x) is UndefinedPrimal


def zeros_like_aval(aval):
    if aval.dtype == dtypes.float0:
        zero = np.zeros((), dtypes.float0)
        if isinstance(core.trace_ctx.trace, core.EvalTrace):
            return np.zeros(aval.shape, dtypes.float0)
        # staged like JAX: a broadcast of the float0 scalar literal
        return broadcast_p_for_zeros.bind(zero, shape=tuple(aval.shape),
                                          broadcast_dimensions=(), sharding=None)
    return zeros_like_aval_impl(aval)


# Installed by didax.lax: the broadcast_in_dim primitive (stages float0 zeros).
broadcast_p_for_zeros: Primitive | None = None


def instantiate_zeros(t):
    return zeros_like_aval(t.aval) if type(t) is Zero else t


def add_tangents(x, y):
    if type(x) is Zero:
        return y
    if type(y) is Zero:
        return x
    return add_jaxvals_p.bind(x, y)


# ----------------------------------------------------------------------------------------
# JVP
# ----------------------------------------------------------------------------------------


class DifferentiatedTracer(Tracer):
    """A value being differentiated, carrying its concrete-or-traced `primal` (the JVP
    tracer here, the eager tape's tracer in tape.py)."""

    __slots__ = ()

    def to_concrete_value(self):
        return core.concrete_value_of(self.primal)

    # As JAX's: a differentiated value may steer Python control flow (bool, int), but
    # float()/complex() would silently drop its derivative, so they are errors.
    def __float__(self):
        raise core.conversion_error(self, "float")

    def __complex__(self):
        raise core.conversion_error(self, "complex")


class JVPTracer(DifferentiatedTracer):
    __slots__ = ("primal", "tangent")

    def __init__(self, trace, primal, tangent):
        self._trace = trace
        self.primal = primal
        self.tangent = tangent

    @property
    def aval(self):
        return get_aval(self.primal)

    def __repr__(self):
        # as JAX's: a tangent being staged (by linearize, grad, vjp) shows as its type
        primal = short_repr(self.primal)
        t = self.tangent
        if isinstance(t, pe.DynamicJaxprTracer) and isinstance(t._trace, pe.JaxprTrace):
            tangent = get_aval(self.tangent).str_short(True)
            return f"GradTracer(primal={primal}, typeof(tangent)={tangent})"
        return f"JVPTracer(primal={primal}, tangent={short_repr(self.tangent)})"


class LinearizeTracer(JVPTracer):
    """A JVP tracer of `linearize` (and so of vjp/grad under a trace): JAX's class name."""

    __slots__ = ()


def short_repr(x) -> str:
    """How JAX shows a value inside a tracer's repr: tracers by repr, values by str."""
    return repr(x) if isinstance(x, Tracer) else str(x)


class JVPTrace(Trace):
    __slots__ = ("tag", "finished", "tracer_cls")

    def __init__(self, parent_trace, tag=None, tracer_cls: type = JVPTracer):
        self.parent_trace = parent_trace
        self.tracer_cls = tracer_cls
        self.tag = tag if tag is not None else object()
        self.finished = False  # set when its transformation returns: a tracer still
        # around is a leak (staging it raises UnexpectedTracerError, as JAX)

    def to_primal_tangent(self, x):
        if type(x) is self.tracer_cls and x._trace.tag is self.tag:
            return x.primal, x.tangent
        return x, Zero.from_primal_value(x)

    def process_primitive(self, primitive, args, params):
        primals, tangents = [], []
        nonzero = False
        tag, cls = self.tag, self.tracer_cls
        for x in args:
            if type(x) is cls and x._trace.tag is tag:
                primals.append(x.primal)
                t = x.tangent
                tangents.append(t)
                nonzero = nonzero or type(t) is not Zero
            else:
                primals.append(x)
                tangents.append(None)
        if not nonzero:
            return self.parent_trace.process_primitive(primitive, primals, params)
        with set_current_trace(self.parent_trace):
            tangents = [Zero.from_primal_value(p) if t is None else t
                        for p, t in zip(primals, tangents)]
            rule = primitive_jvps.get(primitive)
            if rule is None:
                raise NotImplementedError(
                    f"Differentiation rule for '{primitive}' not implemented")
            primal_out, tangent_out = rule(tuple(primals), tuple(tangents), **params)
        if primitive.multiple_results:
            return [self.new(p, t) for p, t in zip(primal_out, tangent_out)]
        return self.new(primal_out, tangent_out)

    def new(self, primal, tangent):
        if type(tangent) is Zero:
            return primal
        return self.tracer_cls(self, primal, tangent)

    def process_custom_jvp_call(self, primitive, fun, jvp, args, *, symbolic_zeros):
        return custom_jvp_call_rules["jvp"](self, primitive, fun, jvp, args,
                                            symbolic_zeros=symbolic_zeros)

    def process_custom_vjp_call(self, primitive, fun, fwd, bwd, args, *, out_trees,
                                symbolic_zeros):
        return custom_jvp_call_rules["vjp"](self, primitive, fun, fwd, bwd, args,
                                            out_trees=out_trees,
                                            symbolic_zeros=symbolic_zeros)


# Installed by didax._src.custom_derivatives: how a JVP trace handles custom rules.
custom_jvp_call_rules: dict[str, Callable] = {}


def jvp_flat(fun: Callable, primals: Sequence[Any], tangents: Sequence[Any],
             instantiate: bool | Sequence[bool] = True) -> tuple[list, list]:
    """Runs fun(*tracers) under a fresh JVP trace; returns (primals_out, tangents_out)."""
    trace = JVPTrace(core.trace_ctx.trace)
    tracers = [trace.new(p, t) if type(t) is not Zero else p for p, t in zip(primals, tangents)]
    with set_current_trace(trace):
        outs = fun(*tracers)
    primals_out, tangents_out = [], []
    for o in outs:
        p, t = trace.to_primal_tangent(o)
        primals_out.append(p)
        tangents_out.append(t)
    trace.finished = True
    if isinstance(instantiate, bool):
        instantiate = [instantiate] * len(tangents_out)
    tangents_out = [instantiate_zeros(t) if inst else t
                    for t, inst in zip(tangents_out, instantiate)]
    return primals_out, tangents_out


def jvp_jaxpr(closed: core.ClosedJaxpr, nonzeros: Sequence[bool],
              instantiate: bool | Sequence[bool]) -> tuple[core.ClosedJaxpr, list[bool]]:
    """The JVP of a jaxpr as a jaxpr: (primals, nonzero tangents) -> (primals, tangents)."""
    in_avals = closed.in_avals
    n = len(in_avals)
    if isinstance(instantiate, bool):
        instantiate = [instantiate] * len(closed.jaxpr.outvars)
    out_nz: list[bool] = []

    def fun(*args):
        primals, nz_tangents = args[:n], iter(args[n:])
        tangents = [next(nz_tangents) if nz else Zero(a.to_tangent_aval())
                    for a, nz in zip(in_avals, nonzeros)]
        p_out, t_out = jvp_flat(lambda *xs: core.eval_jaxpr(closed.jaxpr, closed.consts, *xs),
                                primals, tangents, instantiate=instantiate)
        out_nz[:] = [type(t) is not Zero for t in t_out]
        return [*p_out, *[t for t in t_out if type(t) is not Zero]]

    tangent_avals = [a.to_tangent_aval() for a, nz in zip(in_avals, nonzeros) if nz]
    jaxpr = pe.trace_to_closed_jaxpr(fun, [*in_avals, *tangent_avals], "jvp")
    return jaxpr, out_nz


# ----------------------------------------------------------------------------------------
# Rule helpers
# ----------------------------------------------------------------------------------------


def defjvp(primitive: Primitive, *jvp_fns_: Callable | None,
           self_transposing: bool = True) -> None:
    """JVP from one function per argument: fn(tangent_i, *primals, **params).
    self_transposing=False: for a pointwise primitive, some fn is not its own transpose
    even up to types (it casts), so the eager tape must not pull back through it."""

    def rule(primals, tangents, **params):
        primal_out = primitive.bind(*primals, **params)
        tangent_out = None
        for fn, t in zip(jvp_fns_, tangents):
            if fn is None or type(t) is Zero:
                continue
            contrib = fn(t, *primals, **params)
            tangent_out = contrib if tangent_out is None else add_tangents(tangent_out, contrib)
        if tangent_out is None:
            tangent_out = Zero.from_primal_value(primal_out)
        return primal_out, tangent_out

    primitive_jvps[primitive] = rule
    if self_transposing:
        jvp_fns[primitive] = (jvp_fns_, False)


def defjvp2(primitive: Primitive, *jvp_fns_: Callable | None,
            self_transposing: bool = True) -> None:
    """Like defjvp, but each fn also sees the primal output: fn(t_i, ans, *primals)."""

    def rule(primals, tangents, **params):
        ans = primitive.bind(*primals, **params)
        tangent_out = None
        for fn, t in zip(jvp_fns_, tangents):
            if fn is None or type(t) is Zero:
                continue
            contrib = fn(t, ans, *primals, **params)
            tangent_out = contrib if tangent_out is None else add_tangents(tangent_out, contrib)
        if tangent_out is None:
            tangent_out = Zero.from_primal_value(ans)
        return ans, tangent_out

    primitive_jvps[primitive] = rule
    if self_transposing:
        jvp_fns[primitive] = (jvp_fns_, True)


def defjvp_zero(primitive: Primitive) -> None:
    """The output does not depend differentiably on the inputs (comparisons, ...)."""

    def rule(primals, tangents, **params):
        ans = primitive.bind(*primals, **params)
        if primitive.multiple_results:
            return ans, [Zero.from_primal_value(a) for a in ans]
        return ans, Zero.from_primal_value(ans)

    primitive_jvps[primitive] = rule
    zero_jvp.add(primitive)


def deflinear(primitive: Primitive, transpose_rule: Callable) -> None:
    """A primitive linear in all its (array) arguments."""

    def rule(primals, tangents, **params):
        ans = primitive.bind(*primals, **params)
        ts = [instantiate_zeros(t) for t in tangents]
        return ans, primitive.bind(*ts, **params)

    primitive_jvps[primitive] = rule

    def transpose(ct, *args, **params):
        if type(ct) is Zero:
            return [Zero(a.aval) if is_undefined_primal(a) else None for a in args]
        return transpose_rule(ct, *args, **params)

    primitive_transposes[primitive] = transpose
    linearity[primitive] = "joint"


def deflinear2(primitive: Primitive, transpose_rule: Callable) -> None:
    """Linear primitive whose transpose rule wants the (undefined) operands."""
    deflinear(primitive, transpose_rule)


def defbilinear(primitive: Primitive, lhs_rule: Callable, rhs_rule: Callable) -> None:
    """A primitive linear in each of its two arguments separately (mul, dot_general)."""

    def jvp(primals, tangents, **params):
        x, y = primals
        tx, ty = tangents
        ans = primitive.bind(x, y, **params)
        out = Zero.from_primal_value(ans)
        if type(tx) is not Zero:
            out = primitive.bind(tx, y, **params)
        if type(ty) is not Zero:
            out = add_tangents(out, primitive.bind(x, ty, **params))
        return ans, out

    def transpose(ct, x, y, **params):
        if is_undefined_primal(x):
            if type(ct) is Zero:
                return [Zero(x.aval), None]
            return [lhs_rule(ct, x, y, **params), None]
        if type(ct) is Zero:
            return [None, Zero(y.aval)]
        return [None, rhs_rule(ct, x, y, **params)]

    primitive_jvps[primitive] = jvp
    primitive_transposes[primitive] = transpose
    linearity[primitive] = "each"


# ----------------------------------------------------------------------------------------
# Linearize and transpose
# ----------------------------------------------------------------------------------------


def linearize_flat(fun: Callable, primals: Sequence[Any], stack_prefix: int = 0):
    """Returns (primals_out, linear ClosedJaxpr from input tangents to output tangents,
    out_zeros: which output tangents are symbolically zero). The linear program's
    equations record the name stack without its first `stack_prefix` entries (the
    caller's, as JAX's LinearizeTrace)."""
    pe_trace = pe.JaxprTrace(core.trace_ctx.trace, "linearize", stack_prefix)
    jvp_trace = JVPTrace(pe_trace, tracer_cls=LinearizeTracer)
    tangents_in = [pe_trace.new_arg(get_aval(p).to_tangent_aval()) for p in primals]
    tracers = [LinearizeTracer(jvp_trace, p, t) for p, t in zip(primals, tangents_in)]
    with set_current_trace(jvp_trace):
        outs = fun(*tracers)
    jvp_trace.finished = True
    primals_out, tangents_out, out_zeros = [], [], []
    for o in outs:
        p, t = jvp_trace.to_primal_tangent(o)
        if isinstance(p, Tracer) and p._trace is pe_trace:
            # a JVP rule mixed primals into a staged (tangent) computation
            raise ValueError(
                "Linearization failed to produce known values for all output primals. This "
                "is typically caused by attempting to differentiate a function uses an "
                "operation that does not support reverse-mode autodiff.")
        primals_out.append(p)
        out_zeros.append(type(t) is Zero)
        tangents_out.append(t.aval if type(t) is Zero else pe_trace.instantiate(t))
    nonzero = [t for t in tangents_out if not isinstance(t, core.AbstractValue)]
    jaxpr, consts = pe_trace.to_jaxpr(nonzero)
    return primals_out, core.ClosedJaxpr(jaxpr, consts), out_zeros, tangents_out


def backward_pass(jaxpr: Jaxpr, consts: Sequence[Any], args: Sequence[Any],
                  cts_out: Sequence[Any], cts_init: Sequence[Any] | None = None) -> list[Any]:
    """Transposes `jaxpr`, linear in the args given as UndefinedPrimal. Returns the
    cotangent of each arg (a Zero where nothing flowed). cts_init (optional, per arg, None
    for none): a cotangent each linear arg starts from, accumulated into as contributions
    arrive (a loop's carried cotangent accumulator, as JAX's accumulators are)."""
    primal_env: dict = {}
    for v, c in zip(jaxpr.constvars, consts):
        primal_env[v] = c
    linear: set = set()
    for v, a in zip(jaxpr.invars, args):
        if type(a) is UndefinedPrimal:
            linear.add(v)
        else:
            primal_env[v] = a
    lin_eqns = _forward_nonlinear(jaxpr, primal_env, linear)
    ct_env: dict = {}
    for v, ct in zip(jaxpr.invars, cts_init or ()):
        if ct is not None and v in linear:
            ct_env[v] = ct
    for v, ct in zip(jaxpr.outvars, cts_out):
        if type(v) is core.Var and type(ct) is not Zero and ct is not None:
            ct_env[v] = add_tangents(ct_env[v], ct) if v in ct_env else ct
    for eqn in reversed(lin_eqns):
        cts = [ct_env.pop(v, None) for v in eqn.outvars]
        if all(c is None for c in cts):
            continue
        _transpose_eqn(eqn, cts, primal_env, linear, ct_env)
    return [ct_env.get(v, Zero(v.aval)) if v in linear else Zero(v.aval)
            for v in jaxpr.invars]


def _forward_nonlinear(jaxpr: Jaxpr, primal_env: dict, linear: set) -> list:
    """Evaluates equations with no linear input; returns the linear ones in order."""
    lin_eqns = []
    for eqn in jaxpr.eqns:
        if any(type(a) is core.Var and a in linear for a in eqn.invars):
            lin_eqns.append(eqn)
            linear.update(eqn.outvars)
            continue
        invals = [a.val if type(a) is Literal else primal_env[a] for a in eqn.invars]
        with _provenance(eqn):
            ans = eqn.primitive.bind(*invals, **eqn.params)
        if eqn.primitive.multiple_results:
            for v, x in zip(eqn.outvars, ans):
                primal_env[v] = x
        else:
            primal_env[eqn.outvars[0]] = ans
    return lin_eqns


def _transpose_eqn(eqn, cts, primal_env, linear, ct_env) -> None:
    invals = []
    for a in eqn.invars:
        if type(a) is Literal:
            invals.append(a.val)
        elif a in linear:
            invals.append(UndefinedPrimal(a.aval))
        else:
            invals.append(primal_env[a])
    if eqn.primitive.multiple_results:
        cts = [Zero(v.aval) if c is None else c for v, c in zip(eqn.outvars, cts)]
    else:
        cts = cts[0]
    rule = primitive_transposes.get(eqn.primitive)
    if rule is None:
        raise NotImplementedError(f"Transpose rule (for reverse-mode differentiation) for "
                                  f"'{eqn.primitive}' not implemented")
    with _provenance(eqn):
        cts_in = rule(cts, *invals, **eqn.params)
    for a, ct in zip(eqn.invars, cts_in):
        if ct is None or type(ct) is Zero or type(a) is Literal or a not in linear:
            continue
        prev = ct_env.get(a)
        if prev is None:
            ct_env[a] = ct
        else:
            with _provenance(eqn):
                ct_env[a] = add_jaxvals_p.bind(prev, ct)


class _NoProvenance:
    __slots__ = ()

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


_no_provenance = _NoProvenance()


def _provenance(eqn):
    """Equations derived from eqn (while transposing it) inherit its user location and
    provenance tag — only worth the bookkeeping when something is being staged."""
    if core.trace_ctx.trace is core.eval_trace:
        return _no_provenance
    if eqn.tag is None:
        return core.source_info_override(eqn.source_info)
    return _Both(eqn)


class _Both:
    __slots__ = ("a", "b")

    def __init__(self, eqn):
        self.a = core.source_info_override(eqn.source_info)
        self.b = core.tag_context(eqn.tag)

    def __enter__(self):
        self.a.__enter__()
        self.b.__enter__()

    def __exit__(self, *exc):
        self.b.__exit__(*exc)
        self.a.__exit__(*exc)
        return False


def vjp_flat(fun: Callable, primals: Sequence[Any], stack_prefix: int = 0):
    """Returns (primals_out, f_vjp) where f_vjp(cts_out) -> cts_in (Zeros kept symbolic)."""
    primals_out, lin, out_zeros, _ = linearize_flat(fun, primals, stack_prefix)
    in_avals = [get_aval(p).to_tangent_aval() for p in primals]

    def f_vjp(cts_out):
        cts_nonzero = [c for c, z in zip(cts_out, out_zeros) if not z]
        args = [UndefinedPrimal(a) for a in in_avals]
        return backward_pass(lin.jaxpr, lin.consts, args, cts_nonzero)

    return primals_out, f_vjp, lin


def linear_transpose_fn(fun: Callable, in_avals: Sequence[Any]):
    """(transposed, out_avals) for fun, linear in every flat input: fun(*xs) -> list of
    outputs is traced at in_avals; transposed(cts) -> the input cotangents (zeros
    instantiated)."""
    in_avals = list(in_avals)
    jaxpr, out_avals, consts = pe.trace_to_jaxpr_dynamic(fun, in_avals, "transpose")

    def transposed(cts):
        args = [UndefinedPrimal(a) for a in in_avals]
        return [instantiate_zeros(c) for c in backward_pass(jaxpr, consts, args, cts)]
    return transposed, out_avals


def transpose_jaxpr(closed: core.ClosedJaxpr, linear: Sequence[bool],
                    ) -> core.ClosedJaxpr:
    """The transpose of `closed` w.r.t. its linear inputs, as a jaxpr:
    (non-linear inputs, output cotangents) -> cotangents of the linear inputs."""
    in_avals = closed.in_avals
    lin_avals = [a for a, lin in zip(in_avals, linear) if lin]
    nonlin_avals = [a for a, lin in zip(in_avals, linear) if not lin]
    out_avals = closed.out_avals

    def fun(*args):
        nonlin = iter(args[:len(nonlin_avals)])
        cts = args[len(nonlin_avals):]
        ins = [UndefinedPrimal(a) if lin else next(nonlin) for a, lin in zip(in_avals, linear)]
        cts_in = backward_pass(closed.jaxpr, closed.consts, ins, cts)
        return [instantiate_zeros(c) for c, lin in zip(cts_in, linear) if lin]

    del lin_avals
    return pe.trace_to_closed_jaxpr(fun, [*nonlin_avals, *out_avals], "transpose")
