"""User-defined derivative rules: `custom_jvp` (defjvp, defjvps) and `custom_vjp` (defvjp),
as JAX's design notes describe them.

A call binds `custom_jvp_call` / `custom_vjp_call` through the current trace's
`process_custom_jvp_call` / `process_custom_vjp_call` hook, so every interpreter decides:
eval runs the function; JVP runs the rule (custom_vjp's fwd plus a linear `custom_lin`
whose transpose calls bwd); vmap batches the function *and* its rule (so grad-of-vmap still
uses the rule); staging records one equation carrying the traced function and the rule.

May import core, the interpreters, api_util, tree_util, lax._define.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from didax._src import core, dtypes
from didax._src.core import ClosedJaxpr, Primitive, ShapedArray, Tracer
from didax._src.errors import UnexpectedTracerError
from didax._src.interpreters import ad, batching, lowering
from didax._src.interpreters import partial_eval as pe
from didax._src.interpreters.ad import Zero
from didax._src.lax._define import def_primitive, unsupported
from didax._src.tree_util import tree_flatten, tree_map, tree_structure, tree_unflatten
from didax._src.util import fun_name

# ----------------------------------------------------------------------------------------
# Flat callables handed to the traces
# ----------------------------------------------------------------------------------------


class FlatFun:
    """fun(*flat_in) -> flat_out, remembering the output tree (like JAX's WrappedFun)."""

    def __init__(self, f: Callable, name: str, out_tree=None):
        self.f, self.name, self.out_tree = f, name, out_tree

    def call_wrapped(self, *args):
        return self.f(*args)

    def __repr__(self):
        return self.name

    __str__ = __repr__


class _DerivedFun(FlatFun):
    """A FlatFun derived from `base` (e.g. its batched version): it shares base's output
    tree, which is only known once base has been traced."""

    def __init__(self, f: Callable, name: str, base: FlatFun):
        self.f, self.name, self.base = f, name, base

    @property
    def out_tree(self):
        return self.base.out_tree

    @out_tree.setter
    def out_tree(self, tree):
        self.base.out_tree = tree


class SymbolicZero:
    """What a rule declared with symbolic_zeros=True receives for a tangent (or cotangent)
    known to be zero, and may return for one."""

    def __init__(self, aval):
        self.aval = aval

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)

    @staticmethod
    def from_primal_value(x) -> SymbolicZero:
        return SymbolicZero(core.get_aval(x).to_tangent_aval())

    def __repr__(self):
        return f"SymbolicZero({self.aval.str_short()})"


def zero_from_primal(val, symbolic_zeros: bool = False):
    """A zero tangent for every leaf of val: SymbolicZeros, or instantiated zeros."""
    def zero(x):
        z = SymbolicZero.from_primal_value(x)
        return z if symbolic_zeros else ad.zeros_like_aval(z.aval)
    return tree_map(zero, val)


def _resolve_args(fun, args, kwargs):
    if not kwargs:
        return tuple(args)
    sig = inspect.signature(fun)
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    return tuple(bound.args) + tuple(bound.kwargs.values())


def _split_nondiff(args, nondiff_argnums):
    nondiff = {i: args[i] for i in nondiff_argnums}
    dyn = [a for i, a in enumerate(args) if i not in nondiff]
    return nondiff, dyn


def _merge(nondiff, dyn, n):
    it = iter(dyn)
    return [nondiff[i] if i in nondiff else next(it) for i in range(n)]


def _zeros_like(aval):
    return ad.zeros_like_aval(aval)


# ----------------------------------------------------------------------------------------
# custom_jvp
# ----------------------------------------------------------------------------------------


class custom_jvp:
    """A function with a custom JVP rule: `f = custom_jvp(f); f.defjvp(f_jvp)` where
    f_jvp(primals, tangents) -> (primal_out, tangent_out)."""

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.jvp: Callable | None = None
        self.symbolic_zeros = False

    def defjvp(self, jvp: Callable, symbolic_zeros: bool = False) -> Callable:
        self.jvp = jvp
        self.symbolic_zeros = symbolic_zeros
        return jvp

    def defjvps(self, *jvps: Callable | None) -> None:
        """One rule per argument: jvp_i(tangent_i, primal_out, *primals)."""
        if self.nondiff_argnums:
            raise TypeError("Can't use ``defjvps`` with ``nondiff_argnums``.")

        def jvp(primals, tangents):
            primal_out = self(*primals)
            parts = [rule(t, primal_out, *primals) for rule, t in zip(jvps, tangents)
                     if rule is not None]
            if not parts:
                return primal_out, tree_map(lambda p: np.zeros_like(p), primal_out)
            total = parts[0]
            for p in parts[1:]:  # tangents accumulate with add_any, as JAX's rule does
                total = tree_map(ad.add_tangents, total, p)
            return primal_out, total

        self.defjvp(jvp)

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self, obj)

    def __call__(self, *args, **kwargs):
        name = fun_name(self.fun)
        if self.jvp is None:
            raise AttributeError(f"No JVP defined for custom_jvp function {name} using "
                                 "defjvp.")
        args = _resolve_args(self.fun, args, kwargs)
        # Non-differentiable arguments holding tracers (e.g. batched under vmap) are passed
        # as inputs, with their gradient stopped as JAX does; the rule still receives them
        # first, and their tangents are dropped. Other ones (callables, ...) are closed over.
        static = tuple(i for i in self.nondiff_argnums if not _has_tracer(args[i]))
        args = tuple(_stop_gradient(a) if i in self.nondiff_argnums and i not in static
                     else a for i, a in enumerate(args))
        nondiff, dyn = _split_nondiff(args, static)
        flat, in_tree = tree_flatten(tuple(dyn))
        n = len(args)
        fun = _flat_primal(self.fun, name, nondiff, in_tree, n)
        jvp = _flat_jvp(self.jvp, fun, nondiff, in_tree, n, self.nondiff_argnums)
        outs = custom_jvp_call_p.bind_custom_jvp(fun, jvp, flat, self.symbolic_zeros)
        return tree_unflatten(fun.out_tree, outs)


def _has_tracer(x) -> bool:
    return any(isinstance(leaf, Tracer) for leaf in tree_flatten(x)[0])


def _stop_gradient(x):
    from didax._src.lax import lax  # noqa: PLC0415 - lax sits beside custom rules

    return tree_map(lambda v: lax.stop_gradient(v) if isinstance(v, Tracer) else v, x)


def _flat_primal(f, name, nondiff, in_tree, n) -> FlatFun:
    box = FlatFun(None, name)

    def flat(*xs):
        out = f(*_merge(nondiff, tree_unflatten(in_tree, list(xs)), n))
        leaves, box.out_tree = tree_flatten(out)
        return leaves

    box.f = flat
    return box


def _flat_jvp(rule, fun: FlatFun, nondiff, in_tree, n, nondiff_argnums) -> FlatFun:
    """rule(*nondiff, primals, tangents) -> (out, t_out) as flat(*p, *t) -> [*out, *t_out]."""

    def flat(*xs):
        k = len(xs) // 2
        full_p = _merge(nondiff, tree_unflatten(in_tree, list(xs[:k])), n)
        full_t = _merge(nondiff, tree_unflatten(in_tree, list(xs[k:])), n)
        nd = [full_p[i] for i in sorted(nondiff_argnums)]
        primals = [x for i, x in enumerate(full_p) if i not in nondiff_argnums]
        tangents = [x for i, x in enumerate(full_t) if i not in nondiff_argnums]
        out = rule(*nd, tuple(primals), tuple(tangents))
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError(f"Custom JVP rule {fun_name(rule)} for function {fun.name} must "
                            "produce a pair (list or tuple of length two) representing primal "
                            f"and tangent outputs, but got {out}.")
        p_out, t_out = out
        p_flat, p_tree = tree_flatten(p_out)
        t_flat, t_tree = tree_flatten(t_out, is_leaf=lambda t: isinstance(t, SymbolicZero))
        t_flat = [Zero(t.aval) if isinstance(t, SymbolicZero) else t for t in t_flat]
        if fun.out_tree is None:
            fun.out_tree = p_tree
        _check_jvp_outputs(rule, fun, p_flat, p_tree, t_flat, t_tree)
        return [*p_flat, *t_flat]

    return FlatFun(flat, fun_name(rule))


def _check_jvp_outputs(rule, fun, p_flat, p_tree, t_flat, t_tree) -> None:
    if p_tree != t_tree:
        raise TypeError(f"Custom JVP rule {fun_name(rule)} for function {fun.name} must "
                        "produce primal and tangent outputs with equal container (pytree) "
                        f"structures, but got {p_tree} and {t_tree} respectively.")
    for p, t in zip(p_flat, t_flat):
        pa = core.get_aval(p)
        ta = t.aval if isinstance(t, Zero) else core.get_aval(t)
        expected = pa.to_tangent_aval()
        if ta.shape != expected.shape or ta.dtype != expected.dtype:
            raise TypeError("Custom JVP rule must produce primal and tangent outputs with "
                            "corresponding shapes and dtypes. Expected "
                            f"{_long(expected)} (tangent type of {_long(pa)}) but got "
                            f"{_long(ta)}.")


def _long(aval) -> str:
    return f"{aval.dtype.name}[{','.join(map(str, aval.shape))}]"


class CustomJVPCallPrimitive(Primitive):
    """bind() always goes through the trace's process_custom_jvp_call hook; staged
    equations (params: call_jaxpr, jvp_jaxpr_fun, ...) are turned back into callables."""

    def bind_custom_jvp(self, fun, jvp, args, symbolic_zeros):
        return core.trace_ctx.trace.process_custom_jvp_call(self, fun, jvp, list(args),
                                                            symbolic_zeros=symbolic_zeros)

    def bind(self, *args, call_jaxpr, jvp_jaxpr_fun, num_consts, symbolic_zeros):
        fun = FlatFun(core.jaxpr_as_fun(call_jaxpr), _jaxpr_name(call_jaxpr))
        fun.out_tree = tree_structure([0] * len(call_jaxpr.out_avals))
        return self.bind_custom_jvp(fun, jvp_jaxpr_fun.as_flat(num_consts), args,
                                    symbolic_zeros)


custom_jvp_call_p = CustomJVPCallPrimitive("custom_jvp_call", multiple_results=True)
custom_jvp_call_p.is_higher_order = True


def _jaxpr_name(closed: ClosedJaxpr) -> str:
    return getattr(closed.jaxpr, "debug_info", None) or "f"


class _JvpRule:
    """A staged equation's JVP rule: the original flat jvp, kept as a Python callable."""

    def __init__(self, jvp: FlatFun, n_consts_lifted: int):
        self.jvp, self.n = jvp, n_consts_lifted

    def as_flat(self, num_consts: int) -> FlatFun:
        rule = self.jvp
        if not num_consts:
            return rule

        def flat(*xs):
            k = len(xs) // 2
            consts, primals = xs[:num_consts], xs[num_consts:k]
            tangents = xs[k + num_consts:]
            del consts
            return rule.call_wrapped(*primals, *tangents)
        return FlatFun(flat, rule.name)

    def __str__(self):
        return self.jvp.name

    __repr__ = __str__


# --- per-trace handling of custom_jvp calls -------------------------------------------


def _jvp_process_custom_jvp(trace: ad.JVPTrace, primitive, fun, jvp, args, *,
                            symbolic_zeros):
    primals, tangents = zip(*[trace.to_primal_tangent(x) for x in args]) if args else ((), ())
    if all(type(t) is Zero for t in tangents):
        with core.set_current_trace(trace.parent_trace):
            return primitive.bind_custom_jvp(fun, jvp, primals, symbolic_zeros)
    if symbolic_zeros:
        tangents = [SymbolicZero(t.aval) if type(t) is Zero else t for t in tangents]
    else:
        tangents = [ad.instantiate_zeros(t) for t in tangents]
    with core.set_current_trace(trace.parent_trace):
        outs = jvp.call_wrapped(*primals, *tangents)
    k = len(outs) // 2
    p_out, t_out = outs[:k], outs[k:]
    return [trace.new(p, t) for p, t in zip(p_out, t_out)]


def _batch_process_custom_jvp(trace: batching.BatchTrace, primitive, fun, jvp, args, *,
                              symbolic_zeros):
    vals, dims = zip(*[trace.to_batch_info(x) for x in args]) if args else ((), ())
    if all(d is None for d in dims):
        with core.set_current_trace(trace.parent_trace):
            return primitive.bind_custom_jvp(fun, jvp, vals, symbolic_zeros)
    size = trace.axis_data.size
    vals = [batching.bdim_at_front(v, d, size) if d is not None else v
            for v, d in zip(vals, dims)]
    in_dims = [0 if d is not None else None for d in dims]
    data = trace.axis_data

    def bfun(*xs):
        return _batched_at_front(fun, data, xs, in_dims)

    def bjvp(*xs):
        return _batched_at_front(jvp, data, xs, in_dims + in_dims)

    bf = _DerivedFun(bfun, fun.name, fun)
    bj = FlatFun(bjvp, jvp.name)
    with core.set_current_trace(trace.parent_trace):
        outs = primitive.bind_custom_jvp(bf, bj, vals, symbolic_zeros)
    return [trace.new(o, 0) for o in outs]


def _batched_at_front(f: FlatFun, data, xs, in_dims):
    """f batched over xs, every output moved (or broadcast) to batch axis 0."""
    outs, dims = batching.batch_flat(f.call_wrapped, data, xs, in_dims)
    return [batching.matchaxis(data.size, d, 0, o) for o, d in zip(outs, dims)]


def _stage_custom_jvp(trace: pe.DynamicJaxprTrace, fun, jvp, args, *, symbolic_zeros):
    avals = [core.get_aval(x) for x in args]
    closed = pe.trace_to_closed_jaxpr(fun.call_wrapped, avals, "custom_jvp")
    closed.jaxpr.debug_info = fun.name
    closed, lifted = _lift_consts(closed)
    atoms = [trace.to_atom(x) for x in [*lifted, *args]]
    params = dict(call_jaxpr=closed, jvp_jaxpr_fun=_JvpRule(jvp, len(lifted)),
                  num_consts=len(lifted), symbolic_zeros=symbolic_zeros)
    return trace.emit(custom_jvp_call_p, atoms, closed.out_avals, params)


def _lift_consts(closed: ClosedJaxpr) -> tuple[ClosedJaxpr, list]:
    """Every constant of a traced rule function becomes a leading input (num_consts), as
    JAX stages custom_jvp_call/custom_vjp_call: arrays the function closes over appear as
    operands of the equation, not hidden inside its call_jaxpr."""
    if not closed.consts:
        return closed, []
    jaxpr = closed.jaxpr
    lifted = jaxpr.replace(constvars=[], invars=[*jaxpr.constvars, *jaxpr.invars])
    return ClosedJaxpr(lifted, ()), list(closed.consts)


ad.custom_jvp_call_rules["jvp"] = _jvp_process_custom_jvp
batching.custom_rules["jvp"] = _batch_process_custom_jvp
pe.custom_staging_rules[custom_jvp_call_p] = lambda trace, fun, jvp, args, *, symbolic_zeros: \
    _stage_custom_jvp(trace, fun, jvp, args, symbolic_zeros=symbolic_zeros)
pe.partial_eval_rules[custom_jvp_call_p] = lambda trace, fun, jvp, args, *, symbolic_zeros: \
    _stage_custom_jvp(trace, fun, jvp, args, symbolic_zeros=symbolic_zeros)


def _custom_call_abstract_eval(*avals, call_jaxpr, **params):
    return call_jaxpr.out_avals


def _inline_lower(ctx, *args, call_jaxpr, **params):
    return lowering.lower_jaxpr_body(ctx.fn, call_jaxpr.jaxpr, call_jaxpr.consts, args,
                                     ctx.tokens)


def _custom_jvp_pp(eqn):
    params = dict(eqn.params)
    if not params["num_consts"]:
        params.pop("num_consts")
    params["jvp"] = str(params.pop("jvp_jaxpr_fun"))
    names = sorted(params)
    return [("name", _jaxpr_name(params["call_jaxpr"]))] + [(k, params[k]) for k in names]


def _custom_call_dce(used_outputs, eqn):
    if not any(used_outputs) and not eqn.effects:
        return [False] * len(eqn.invars), None
    return [True] * len(eqn.invars), eqn


def _custom_call_effects(*, call_jaxpr, **params):
    """The effects of the function (a debug print or a check in it is never dropped)."""
    return call_jaxpr.effects


custom_jvp_call_p.abstract_eval = _custom_call_abstract_eval
custom_jvp_call_p.impl = None
lowering.lowerings[custom_jvp_call_p] = _inline_lower
core.pp_params_rules[custom_jvp_call_p] = _custom_jvp_pp
pe.dce_rules[custom_jvp_call_p] = _custom_call_dce
pe.effects_rules[custom_jvp_call_p] = _custom_call_effects


# ----------------------------------------------------------------------------------------
# custom_vjp
# ----------------------------------------------------------------------------------------


class custom_vjp:
    """A function with a custom VJP: `f.defvjp(fwd, bwd)`, fwd(*args) -> (out, residuals),
    bwd(*nondiff, residuals, ct_out) -> tuple of cts (one per differentiable argument)."""

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.fwd: Callable | None = None
        self.bwd: Callable | None = None
        self.symbolic_zeros = False

    def defvjp(self, fwd: Callable, bwd: Callable, symbolic_zeros: bool = False) -> None:
        self.fwd, self.bwd, self.symbolic_zeros = fwd, bwd, symbolic_zeros

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self, obj)

    def __call__(self, *args, **kwargs):
        name = fun_name(self.fun)
        if self.fwd is None or self.bwd is None:
            raise AttributeError(f"No VJP defined for custom_vjp function {name} using "
                                 "defvjp.")
        args = _resolve_args(self.fun, args, kwargs)
        nondiff, dyn = _split_nondiff(args, self.nondiff_argnums)
        for i in self.nondiff_argnums:
            _check_for_tracers(args[i])
        flat, in_tree = tree_flatten(tuple(dyn))
        n = len(args)
        fun = _flat_primal(self.fun, name, nondiff, in_tree, n)
        fwd, bwd = _flat_fwd_bwd(self, fun, nondiff, in_tree, n)
        outs = custom_vjp_call_p.bind_custom_vjp(fun, fwd, bwd, flat, self.symbolic_zeros)
        return tree_unflatten(fun.out_tree, outs)


def _check_for_tracers(x) -> None:
    for leaf in tree_flatten(x)[0]:
        if isinstance(leaf, Tracer):
            raise UnexpectedTracerError(
                "Found a JAX Tracer object passed as an argument to a custom_vjp function in a "
                "position indicated by nondiff_argnums as non-differentiable. Tracers cannot "
                "be passed as non-differentiable arguments to custom_vjp functions; instead, "
                "nondiff_argnums should only be used for arguments that can't be or contain "
                "JAX tracers, e.g. function-valued arguments. In particular, array-valued "
                "arguments should typically not be indicated as nondiff_argnums.")


def _flat_fwd_bwd(cv: custom_vjp, fun: FlatFun, nondiff, in_tree, n):
    """fwd_flat(*xs) -> [*outs, *res] (res tree remembered); bwd_flat(*res, *cts) -> cts_in."""
    state: dict[str, Any] = {}
    nd = [nondiff[i] for i in sorted(cv.nondiff_argnums)]

    def fwd_flat(*xs):
        out = cv.fwd(*_merge(nondiff, tree_unflatten(in_tree, list(xs)), n))
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError(f"Custom VJP fwd rule {fun_name(cv.fwd)} for function {fun.name} "
                            "must produce a pair (list or tuple of length two) where the first "
                            "element represents the primal output (equal to the output of the "
                            "custom_vjp-decorated function) and the second element represents "
                            f"residuals (i.e. values stored from the forward pass for use on "
                            f"the backward pass), but instead the fwd rule output was {out}.")
        primal, res = out
        state["in_avals"] = [core.get_aval(x) for x in xs]
        p_flat, p_tree = tree_flatten(primal)
        r_flat, state["res_tree"] = tree_flatten(res)
        if fun.out_tree is None:
            fun.out_tree = p_tree
        state["out_avals"] = [core.get_aval(p) for p in p_flat]
        return [*p_flat, *r_flat]

    def bwd_flat(*xs):
        res_tree = state["res_tree"]
        k = res_tree.num_leaves
        res = tree_unflatten(res_tree, list(xs[:k]))
        cts = tree_unflatten(fun.out_tree, list(xs[k:]))
        cts_in = cv.bwd(*nd, res, cts)
        return _flatten_bwd_output(cv, cts_in, in_tree, state.get("in_avals"))

    return FlatFun(fwd_flat, fun_name(cv.fwd)), FlatFun(bwd_flat, fun_name(cv.bwd))


def _flatten_bwd_output(cv, cts_in, in_tree, in_avals=None):
    """bwd's output as one cotangent (or None) per flat primal input. As JAX: a tuple (or
    list) with one entry per differentiable argument, None meaning zeros; each entry's
    structure and shapes those of its argument."""
    n_args = len(in_tree.children())
    if not isinstance(cts_in, (tuple, list)) or len(cts_in) != n_args:
        got = tree_structure(cts_in, is_leaf=lambda x: x is None)
        raise TypeError("Custom VJP bwd rule must produce an output with the same container "
                        "(pytree) structure as the args tuple of the primal function, and in "
                        "particular must produce a tuple of length equal to the number of "
                        "arguments to the primal function, but got bwd output structure "
                        f"{got} for primal input structure {in_tree}.")
    flat = []
    for child, ct in zip(in_tree.children(), cts_in):
        if ct is None:
            flat.extend([None] * child.num_leaves)
        else:
            try:
                pieces = child.flatten_up_to(ct)
                # None stands for a zero subtree; anything else must be an array leaf
                if any(p is not None and tree_structure(p).num_nodes != 1 for p in pieces):
                    raise TypeError("structure mismatch")
                flat.extend(pieces)
            except (TypeError, ValueError):
                got = tree_structure(tuple(cts_in), is_leaf=lambda x: x is None)
                raise TypeError(
                    "Custom VJP bwd rule must produce an output with the same container "
                    "(pytree) structure as the args tuple of the primal function, and in "
                    "particular must produce a tuple of length equal to the number of "
                    "arguments to the primal function, but got bwd output structure "
                    f"{got} for primal input structure {in_tree}.") from None
    if in_avals is not None:
        _check_bwd_shapes(flat, in_avals, in_tree)
    return flat


def _check_bwd_shapes(flat, in_avals, in_tree) -> None:
    from didax._src.tree_util import keystr, tree_flatten_with_path  # noqa: PLC0415

    paths = [keystr(p) for p, _ in
             tree_flatten_with_path(tree_unflatten(in_tree, [0] * in_tree.num_leaves))[0]]
    for ct, aval, path in zip(flat, in_avals, paths):
        if ct is None or isinstance(ct, (Zero, SymbolicZero)):
            continue
        shape = np.shape(ct)
        if tuple(shape) != tuple(aval.shape) and not (
                isinstance(ct, np.ndarray) and ct.dtype == dtypes.float0):
            got = core.get_aval(ct)
            raise ValueError("Custom VJP bwd rule must produce an output with the same type as "
                             "the args tuple of the primal function, but at "
                             f"output{path} the bwd rule produced an output of type "
                             f"{_long(got)} corresponding to an input of type {_long(aval)}, "
                             "so the shapes do not match")


class CustomVJPCallPrimitive(Primitive):
    def bind_custom_vjp(self, fun, fwd, bwd, args, symbolic_zeros):
        return core.trace_ctx.trace.process_custom_vjp_call(
            self, fun, fwd, bwd, list(args), out_trees=None, symbolic_zeros=symbolic_zeros)

    def bind(self, *args, call_jaxpr, fwd, bwd, num_consts, symbolic_zeros):
        # The lifted constants stay inputs (so every trace sees them, e.g. batched under
        # vmap); fwd and bwd are adapted to ignore them (they get no cotangent).
        fun = FlatFun(core.jaxpr_as_fun(call_jaxpr), _jaxpr_name(call_jaxpr))
        fun.out_tree = tree_structure([0] * len(call_jaxpr.out_avals))
        f, b = fwd.as_flat(num_consts), bwd.as_flat(num_consts)
        return self.bind_custom_vjp(fun, f, b, args, symbolic_zeros)


custom_vjp_call_p = CustomVJPCallPrimitive("custom_vjp_call", multiple_results=True)
custom_vjp_call_p.is_higher_order = True


class _Kept:
    """A staged custom_vjp's fwd or bwd, kept as the original Python callable. Re-bound
    with num_consts leading constant inputs, fwd skips them and bwd gives them no
    cotangent."""

    def __init__(self, f: FlatFun, role: str):
        self.f, self.role = f, role

    def as_flat(self, num_consts: int) -> FlatFun:
        f = self.f
        if not num_consts:
            return f
        if self.role == "fwd":
            return FlatFun(lambda *xs: f.call_wrapped(*xs[num_consts:]), f.name)
        return FlatFun(lambda *xs: [None] * num_consts + list(f.call_wrapped(*xs)), f.name)

    def __str__(self):
        return self.f.name

    __repr__ = __str__


def _jvp_process_custom_vjp(trace: ad.JVPTrace, primitive, fun, fwd, bwd, args, *,
                            out_trees, symbolic_zeros):
    primals, tangents = zip(*[trace.to_primal_tangent(x) for x in args]) if args else ((), ())
    if all(type(t) is Zero for t in tangents):
        with core.set_current_trace(trace.parent_trace):
            return primitive.bind_custom_vjp(fun, fwd, bwd, primals, symbolic_zeros)
    with core.set_current_trace(trace.parent_trace):
        outs_and_res = fwd.call_wrapped(*primals)
    n_out = fun.out_tree.num_leaves
    p_out, res = outs_and_res[:n_out], outs_and_res[n_out:]
    out_avals = [core.get_aval(p).to_tangent_aval() for p in p_out]
    in_zeros = tuple(type(t) is Zero for t in tangents)
    nz = [t for t in tangents if type(t) is not Zero]
    with core.set_current_trace(trace.parent_trace):
        t_out = custom_lin_p.bind(*res, *nz, num_res=len(res), bwd=bwd,
                                  out_avals=tuple(out_avals), symbolic_zeros=symbolic_zeros,
                                  in_zeros=in_zeros)
    return [trace.new(p, t) for p, t in zip(p_out, t_out)]


def _batch_process_custom_vjp(trace: batching.BatchTrace, primitive, fun, fwd, bwd, args, *,
                              out_trees, symbolic_zeros):
    vals, dims = zip(*[trace.to_batch_info(x) for x in args]) if args else ((), ())
    if all(d is None for d in dims):
        with core.set_current_trace(trace.parent_trace):
            return primitive.bind_custom_vjp(fun, fwd, bwd, vals, symbolic_zeros)
    size = trace.axis_data.size
    data = trace.axis_data
    vals = [batching.bdim_at_front(v, d, size) if d is not None else v
            for v, d in zip(vals, dims)]
    in_dims = [0 if d is not None else None for d in dims]

    def bfun(*xs):
        return _batched_at_front(fun, data, xs, in_dims)

    def bfwd(*xs):
        return _batched_at_front(fwd, data, xs, in_dims)

    in_avals = [_unbatched_aval(core.get_aval(v), d) for v, d in zip(vals, in_dims)]
    bwd_nonnull = FlatFun(lambda *ys: [c if c is not None else _zero_ct(a) for c, a in
                                       zip(bwd.call_wrapped(*ys), in_avals)], bwd.name)

    def bbwd(*xs):
        return _batched_at_front(bwd_nonnull, data, xs, [0] * len(xs))

    with core.set_current_trace(trace.parent_trace):
        outs = primitive.bind_custom_vjp(_DerivedFun(bfun, fun.name, fun),
                                         FlatFun(bfwd, fwd.name), FlatFun(bbwd, bwd.name),
                                         vals, symbolic_zeros)
    return [trace.new(o, 0) for o in outs]


def _unbatched_aval(aval, d):
    return aval if d is None else ShapedArray(aval.shape[1:], aval.dtype, aval.weak_type)


def _zero_ct(aval):
    return ad.zeros_like_aval(aval.to_tangent_aval())


def _stage_custom_vjp(trace: pe.DynamicJaxprTrace, fun, fwd, bwd, args, *, out_trees,
                      symbolic_zeros):
    avals = [core.get_aval(x) for x in args]
    closed = pe.trace_to_closed_jaxpr(fun.call_wrapped, avals, "custom_vjp")
    closed.jaxpr.debug_info = fun.name
    closed, lifted = _lift_consts(closed)
    atoms = [trace.to_atom(x) for x in [*lifted, *args]]
    params = dict(call_jaxpr=closed, fwd=_Kept(fwd, "fwd"), bwd=_Kept(bwd, "bwd"), num_consts=len(lifted),
                  symbolic_zeros=symbolic_zeros)
    return trace.emit(custom_vjp_call_p, atoms, closed.out_avals, params)


def _custom_vjp_pp(eqn):
    params = dict(eqn.params)
    if not params["num_consts"]:
        params.pop("num_consts")
    params["fwd"] = str(params["fwd"])
    params["bwd"] = str(params["bwd"])
    names = sorted(params)
    return [("name", _jaxpr_name(params["call_jaxpr"]))] + [(k, params[k]) for k in names]


ad.custom_jvp_call_rules["vjp"] = _jvp_process_custom_vjp
batching.custom_rules["vjp"] = _batch_process_custom_vjp
pe.custom_staging_rules[custom_vjp_call_p] = _stage_custom_vjp
pe.partial_eval_rules[custom_vjp_call_p] = lambda trace, fun, fwd, bwd, args, **kw: \
    _stage_custom_vjp(trace, fun, fwd, bwd, args, **kw)
custom_vjp_call_p.abstract_eval = _custom_call_abstract_eval
lowering.lowerings[custom_vjp_call_p] = _inline_lower
core.pp_params_rules[custom_vjp_call_p] = _custom_vjp_pp
pe.dce_rules[custom_vjp_call_p] = _custom_call_dce
pe.effects_rules[custom_vjp_call_p] = _custom_call_effects


# --- custom_lin: the linear stand-in for a custom_vjp's tangent map --------------------


def _custom_lin_impl(*args, num_res, bwd, out_avals, symbolic_zeros, in_zeros):
    raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


def _custom_lin_transpose(cts, *args, num_res, bwd, out_avals, symbolic_zeros, in_zeros):
    res = args[:num_res]
    if not symbolic_zeros:
        cts = [ad.instantiate_zeros(c) for c in cts]
    cts_in = bwd.call_wrapped(*res, *cts)
    nz = [None if c is None else c for c, z in zip(cts_in, in_zeros) if not z]
    return [None] * num_res + [Zero(a.aval) if c is None else c
                               for c, a in zip(nz, args[num_res:])]


def _custom_lin_pp(eqn):
    params = dict(eqn.params)
    params.pop("out_avals")
    params["bwd"] = str(params["bwd"])
    params["in_zeros"] = list(params["in_zeros"])
    return sorted(params.items())


custom_lin_p = def_primitive(
    "custom_lin", abstract_eval=lambda *a, out_avals, **p: list(out_avals),
    impl=None, eager_impl=_custom_lin_impl,
    jvp=unsupported("custom_lin is already linear; it only appears inside linearized jaxprs"),
    transpose=_custom_lin_transpose,
    batch=lambda axis_data, vals, dims, **params: _custom_lin_impl(*vals, **params),
    lower=_custom_lin_impl, multiple_results=True, pp_params=_custom_lin_pp)


