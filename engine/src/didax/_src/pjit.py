"""`jit`: a higher-order primitive (`jit_p`, printed `jit[name=f jaxpr={...}]`) carrying a
ClosedJaxpr, with rules for every interpreter — eager impl (compile with XLA, run), JVP,
batching, partial evaluation (a known and an unknown jitted call joined by residuals),
transpose and DCE — and the `jit()` API: tracing once per (static args, input types),
an executable cache, and a lean dispatch path at top level.

May import core, the interpreters, xla_backend, array, lax._define, api_util, tree_util.
"""

from __future__ import annotations

import functools
import inspect
import os
import re
import sys
import weakref
from collections.abc import Callable, Sequence

import numpy as np

from didax._src import core, debug_nans, dtypes, sharded_exec, sharding, source_info, xla_backend
from didax._src.api_util import (
    ShapeDtypeStruct,
    ensure_index_tuple,
    flatten_fun,
    param_names,
    shaped_abstractify,
)
from didax._src.array import Array
from didax._src.config import config
from didax._src.core import ClosedJaxpr, Tracer
from didax._src.interpreters import ad, batching, lowering
from didax._src.interpreters import partial_eval as pe
from didax._src.interpreters.ad import Zero
from didax._src.jit_messages import argument_error as _argument_error
from didax._src.jit_messages import check_distinct_refs as _check_distinct_refs
from didax._src.jit_messages import check_no_ref_outputs as _check_no_ref_outputs
from didax._src.jit_messages import explain_miss as _explain_miss
from didax._src.jit_messages import no_refs as _no_refs
from didax._src.lax._define import def_primitive
from didax._src.lax.sharding_constraint import meshes_in
from didax._src.state import types as state_types
from didax._src.tree_util import tree_flatten, tree_structure, tree_unflatten
from didax._src.util import fun_name

# The recorder's hooks: pjit sits below api, so api adopts this very list object.
_call_hooks: list = []
# Installed by state/discharge.py (a library above jit): how a jitted program touching
# refs runs, eagerly ("call") and under a transformation ("bind").
state_hooks: dict = {}

# ----------------------------------------------------------------------------------------
# Memoized jaxpr transformations (stable identities keep compile caches warm)
# ----------------------------------------------------------------------------------------

_memo: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _memoized(kind: str, closed: ClosedJaxpr, key, make: Callable):
    try:
        table = _memo.setdefault(closed, {})
    except TypeError:
        return make()
    k = (kind, key)
    out = table.get(k)
    if out is None:
        out = table[k] = make()
    return out


# ----------------------------------------------------------------------------------------
# The primitive
# ----------------------------------------------------------------------------------------


def _jit_abstract_eval(*avals, jaxpr: ClosedJaxpr, name, donated_invars, keep_unused,
                       inline):
    if len(avals) != len(jaxpr.in_avals):
        raise TypeError(f"jit {name}: got {len(avals)} arguments, expected "
                        f"{len(jaxpr.in_avals)}")
    for a, b in zip(avals, jaxpr.in_avals):
        if not core.typematch(a, b):
            raise TypeError(f"jit {name}: argument type {a.str_short()} does not match the "
                            f"jaxpr's parameter type {b.str_short()}")
    return jaxpr.out_avals


def _jit_impl(*args, jaxpr: ClosedJaxpr, name, donated_invars, keep_unused, inline):
    for a in args:
        if isinstance(a, Tracer):
            raise core.escaped_tracer_error(a)
    if state_types.touches_refs(jaxpr.jaxpr):
        return state_hooks["call"](jaxpr, args, name, keep_unused)
    exe = compiled_for_jaxpr(jaxpr, name, keep_unused)
    return exe.call(args)


def _jit_jvp(primals, tangents, *, jaxpr, name, donated_invars, keep_unused, inline):
    _no_refs(jaxpr, "Differentiation")
    nonzeros = tuple(type(t) is not Zero for t in tangents)
    jvp_closed, out_nz = _memoized("jvp", jaxpr, nonzeros,
                                   lambda: ad.jvp_jaxpr(jaxpr, nonzeros, instantiate=False))
    nz_tangents = [t for t in tangents if type(t) is not Zero]
    n_out = len(jaxpr.out_avals)
    outs = jit_p.bind(*primals, *nz_tangents, jaxpr=jvp_closed, name=name,
                      donated_invars=(False,) * len(jvp_closed.in_avals),
                      keep_unused=keep_unused, inline=inline)
    p_out, t_nz = outs[:n_out], iter(outs[n_out:])
    t_out = [next(t_nz) if nz else Zero(a.to_tangent_aval())
             for a, nz in zip(jaxpr.out_avals, out_nz)]
    return p_out, t_out


def batch_jaxpr(closed: ClosedJaxpr, axis_data, in_dims: Sequence[int | None],
                natural_out_dims: bool = False) -> tuple[ClosedJaxpr, list[int | None]]:
    """The batched jaxpr with batched inputs at in_dims; outputs at axis 0 (or unbatched),
    or, with natural_out_dims, wherever the batched computation leaves them."""
    out_dims_box: list = []
    size = axis_data.size

    def fun(*args):
        outs, dims = batching.batch_flat(
            lambda *xs: core.eval_jaxpr(closed.jaxpr, closed.consts, *xs), axis_data,
            args, in_dims)
        if natural_out_dims:
            out_dims_box[:] = list(dims)
            return outs
        out_dims_box[:] = [None if d is None else 0 for d in dims]
        return [o if d is None else batching.moveaxis(o, d, 0) for o, d in zip(outs, dims)]

    avals = []
    for a, d in zip(closed.in_avals, in_dims):
        if d is None:
            avals.append(a)
        else:
            shape = (*a.shape[:d], size, *a.shape[d:])
            avals.append(core.ShapedArray(shape, a.dtype, a.weak_type))
    batched = pe.trace_to_closed_jaxpr(fun, avals, "vmap")
    return batched, list(out_dims_box)


def _jit_batch(axis_data, vals, dims, *, jaxpr, name, donated_invars, keep_unused, inline):
    _no_refs(jaxpr, "Batching")
    # Batch dimensions stay where they are, in and out (as JAX: no transposes around
    # the call).
    in_dims = tuple(None if d is None else d % len(core.get_aval(v).shape)
                    for v, d in zip(vals, dims))
    batched, out_dims = _memoized(("vmap", axis_data.size, axis_data.name), jaxpr, in_dims,
                                  lambda: batch_jaxpr(jaxpr, axis_data, in_dims, True))
    outs = jit_p.bind(*vals, jaxpr=batched, name=name, donated_invars=donated_invars,
                      keep_unused=keep_unused, inline=inline)
    return outs, out_dims


def _jit_transpose(cts, *args, jaxpr, name, donated_invars, keep_unused, inline):
    linear = tuple(ad.is_undefined_primal(a) for a in args)
    nonlin = [a for a in args if not ad.is_undefined_primal(a)]
    ct_zero = tuple(type(c) is Zero for c in cts)
    closed = jaxpr
    if any(ct_zero):
        # Drop outputs with zero cotangents so no zeros are instantiated.
        keep = [not z for z in ct_zero]
        dced, _ = pe.dce_jaxpr(jaxpr.jaxpr, keep, instantiate=True)
        closed = ClosedJaxpr(dced, jaxpr.consts)
        cts = [c for c in cts if type(c) is not Zero]
    t_closed, used = _memoized("transpose", closed, linear,
                               lambda: _transpose_pruned(closed, linear))
    ins = [x for x, u in zip([*nonlin, *cts], used) if u]
    outs = jit_p.bind(*ins, jaxpr=t_closed, name=name,
                      donated_invars=(False,) * len(ins),
                      keep_unused=keep_unused, inline=inline)
    it = iter(outs)
    return [next(it) if lin else None for lin in linear]


def _transpose_pruned(closed: ClosedJaxpr, linear) -> tuple[ClosedJaxpr, list[bool]]:
    """The transposed jaxpr without the residuals and cotangents it does not read (JAX
    prunes them too), and which of its inputs it keeps."""
    t_closed = ad.transpose_jaxpr(closed, linear)
    dced, used = pe.dce_jaxpr(t_closed.jaxpr, None, instantiate=False)
    if all(used):
        return t_closed, used
    live = set(dced.constvars)
    consts = [c for v, c in zip(t_closed.jaxpr.constvars, t_closed.consts) if v in live]
    return ClosedJaxpr(dced, consts), used


def _jit_lower(ctx, *args, jaxpr, name, donated_invars, keep_unused, inline):
    ordered = ctx.tokens is not None and _has_ordered(jaxpr.jaxpr)
    sym = lowering.lower_function_once(ctx.module, ("jit", id(jaxpr), ordered), name, jaxpr,
                                       token_in=ordered, op_loc=ctx.fn.loc)
    ambient = ctx.fn.loc
    ctx.fn.loc = lowering.named_loc(ctx.fn, f"jit({name})", ctx.eqn)  # the call's, as JAX
    try:
        if not ordered:
            return lowering.call_function(ctx, sym, args, ctx.avals_out)
        outs = lowering.call_function(ctx, sym, [ctx.tokens.token, *args],
                                      [core.abstract_token, *ctx.avals_out])
    finally:
        ctx.fn.loc = ambient
    ctx.tokens.token = outs[0]
    return outs[1:]


def _has_ordered(jaxpr) -> bool:
    return any(getattr(e, "ordered", False) for e in jaxpr.effects)


def _jit_pp_params(eqn):
    """name first, then the rest sorted; defaults hidden (as JAX prints jit)."""
    params = dict(eqn.params)
    del params["inline"]
    if not any(params["donated_invars"]):
        del params["donated_invars"]
    if not params["keep_unused"]:
        del params["keep_unused"]
    name = params.pop("name")
    return [("name", name)] + sorted(params.items())


def _jit_pp(eqn, context, settings):
    inner = eqn.params["jaxpr"].jaxpr
    if inner not in context.shared_jaxprs:
        context.suggest_same_var_names(inner.invars, eqn.invars)
        context.suggest_same_var_names(inner.outvars, eqn.outvars)
    return core.pp_eqn_default(eqn, context, settings)


jit_p = def_primitive(
    "jit", abstract_eval=_jit_abstract_eval, impl=None, eager_impl=_jit_impl,
    jvp=_jit_jvp, transpose=_jit_transpose, batch=_jit_batch, lower=_jit_lower,
    multiple_results=True, pp=_jit_pp, pp_params=_jit_pp_params)
jit_p.is_higher_order = True


# --- partial evaluation: split into a known and an unknown jitted call
def _jit_partial_eval(trace: pe.JaxprTrace, *args, jaxpr, name, donated_invars, keep_unused,
                      inline):
    _no_refs(jaxpr, "Partial evaluation")
    unknowns = tuple(trace.is_unknown(a) for a in args)
    known, unknown, out_uk, n_primal, fwd = _memoized(
        "pe", jaxpr, unknowns, lambda: _split_known_unknown(jaxpr, unknowns))
    known_args = [a for a, u in zip(args, unknowns) if not u]
    with core.set_current_trace(trace.parent_trace):
        known_outs = jit_p.bind(*known_args, jaxpr=known, name=name,
                                donated_invars=(False,) * len(known_args),
                                keep_unused=keep_unused, inline=inline)
    sources = {"in": known_args, "out": known_outs, "res": known_outs[n_primal:]}
    residuals = [sources[kind][i] for kind, i in fwd]
    unknown_args = [trace.instantiate(a) for a, u in zip(args, unknowns) if u]
    atoms = [trace.to_atom(x) for x in [*residuals, *unknown_args]]
    params = dict(jaxpr=unknown, name=name, donated_invars=(False,) * len(atoms),
                  keep_unused=keep_unused, inline=inline)
    unknown_outs = trace.emit(jit_p, atoms, unknown.out_avals, params)
    k_it, u_it = iter(known_outs[:n_primal]), iter(unknown_outs)
    return [next(u_it) if uk else next(k_it) for uk in out_uk]


def _split_known_unknown(jaxpr: ClosedJaxpr, unknowns):
    known, unknown, out_uk, res_avals = pe.partial_eval_jaxpr_nounits(
        jaxpr, unknowns, instantiate=False)
    n_primal = len(known.out_avals) - len(res_avals)
    known, fwd = _forward_residuals(known, len(res_avals))
    return known, unknown, out_uk, n_primal, fwd


def _forward_residuals(known: ClosedJaxpr, num_res: int):
    """As JAX does, a residual that is merely a known input, or a known primal output, or
    a repeat of another residual, is not returned (again) by the known call. Returns (known
    jaxpr, per residual where it comes from: ("in", i) the i-th known argument, ("out", k)
    the k-th known primal output, ("res", j) the j-th residual the known call returns)."""
    jaxpr = known.jaxpr
    n_out = len(jaxpr.outvars) - num_res
    primal_outs, res_vars = jaxpr.outvars[:n_out], jaxpr.outvars[n_out:]
    in_pos = {v: i for i, v in enumerate(jaxpr.invars)}
    out_pos: dict = {}
    for k, v in enumerate(primal_outs):
        if type(v) is core.Var:
            out_pos.setdefault(v, k)
    fwd, kept, kept_pos = [], [], {}
    for v in res_vars:
        if type(v) is core.Var and v in in_pos:
            fwd.append(("in", in_pos[v]))
        elif type(v) is core.Var and v in out_pos:
            fwd.append(("out", out_pos[v]))
        else:
            key = v if type(v) is core.Var else id(v)
            if key not in kept_pos:
                kept_pos[key] = len(kept)
                kept.append(v)
            fwd.append(("res", kept_pos[key]))
    if len(kept) == len(res_vars):
        return known, fwd
    return ClosedJaxpr(jaxpr.replace(outvars=primal_outs + kept), known.consts), fwd


pe.partial_eval_rules[jit_p] = _jit_partial_eval
pe.effects_rules[jit_p] = lambda jaxpr, **params: jaxpr.jaxpr.effects


def _jit_staging(trace: pe.DynamicJaxprTrace, *args, **params):
    """jit(f, inline=True) stages f's equations in place (no jit equation), as JAX does."""
    if params["inline"] and type(trace) is pe.DynamicJaxprTrace:
        closed = params["jaxpr"]
        return core.eval_jaxpr(closed.jaxpr, closed.consts, *args, propagate_source_info=False)
    return trace.default_process_primitive(jit_p, args, params)


pe.custom_staging_rules[jit_p] = _jit_staging


def _jit_dce(used_outputs, eqn):
    closed = eqn.params["jaxpr"]
    keep_unused = eqn.params["keep_unused"]
    dced, used_inputs = pe.dce_jaxpr(closed.jaxpr, used_outputs, instantiate=keep_unused)
    if not any(used_outputs) and not dced.effects:
        return [False] * len(eqn.invars), None
    keep = set(dced.constvars)
    consts = [c for v, c in zip(closed.jaxpr.constvars, closed.consts) if v in keep]
    new_closed = ClosedJaxpr(dced, consts)
    params = dict(eqn.params, jaxpr=new_closed,
                  donated_invars=tuple(d for d, u in zip(eqn.params["donated_invars"],
                                                         used_inputs) if u))
    new_eqn = eqn.replace(invars=[v for v, u in zip(eqn.invars, used_inputs) if u],
                          outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
                          params=params)
    return used_inputs, new_eqn


pe.dce_rules[jit_p] = _jit_dce


# ----------------------------------------------------------------------------------------
# Compilation and execution
# ----------------------------------------------------------------------------------------


class XlaExecutable:
    """A loaded XLA executable plus what calling it needs: which flat arguments it takes,
    the device buffers of hoisted constants, and output result handlers."""

    def __init__(self, exe, module_text: str, kept: list[int], const_bufs: list,
                 in_avals, out_avals, out_literals, ordered: bool = False):
        self.exe = exe
        self.ordered = ordered
        self.text = module_text
        self.kept = kept
        self.const_bufs = const_bufs
        self.in_avals = in_avals
        self.out_avals = out_avals
        self.out_literals = out_literals
        self.handlers = [xla_backend.result_handler(core.physical_aval(a))
                         for a, lit in zip(out_avals, out_literals)
                         if lit is None and not isinstance(a, core.AbstractToken)]
        self.all_dynamic = all(lit is None for lit in out_literals)
        self.locs = None  # the module's LocTable (which equation each location came from)

    def call(self, args) -> list:
        bufs = list(self.const_bufs)
        avals = self.in_avals
        for i in self.kept:
            x = args[i]
            if type(x) is Array:
                b = x._buf
                bufs.append(b if b is not None else x._device_buffer())
            elif isinstance(x, Array):  # e.g. PRNG key arrays: their data's buffer
                bufs.append(x._device_buffer())
            else:
                bufs.append(xla_backend.device_put(np.asarray(x, avals[i].dtype)))
        outs = self.exe.execute_sharded(bufs).consume_with_handlers(self.handlers)
        if self.all_dynamic:
            return [_from_buffer(b, a) for b, a in zip(outs, self.out_avals)]
        it = iter(outs)
        return [_from_buffer(next(it), a) if lit is None else lit
                for a, lit in zip(self.out_avals, self.out_literals)]




def effects_barrier() -> None:
    """Waits until every effect issued so far has run (the CPU client is synchronous, so
    every effect has already run when a call returns)."""


def _from_buffer(buf, aval) -> Array:
    if not isinstance(aval.dtype, np.dtype) and isinstance(aval.dtype, dtypes.ExtendedDType):
        return aval.dtype._rules.from_physical(aval, _from_buffer(buf, core.physical_aval(aval)))
    a = Array.__new__(Array)
    a._npy = None
    a._buf = buf
    a._device = None
    a.aval = aval
    return a


def compile_closed_jaxpr(closed: ClosedJaxpr, name: str, keep_unused: bool = False,
                         result_infos: Sequence[str] | None = None,
                         arg_names: Sequence[str | None] | None = None) -> XlaExecutable:
    """Lowers and compiles closed: unused inputs dropped (unless keep_unused), concrete
    non-scalar constants hoisted to parameters, literal outputs returned directly.
    result_infos / arg_names: the outputs' / inputs' names in the module (as
    Lowered.as_text shows them). The executable keeps the module's locations (`locs`)."""
    jaxpr = closed.jaxpr
    jaxpr, used = pe.dce_jaxpr(jaxpr, None, instantiate=keep_unused)
    kept = [i for i, u in enumerate(used) if u]
    keep_consts = set(jaxpr.constvars)
    consts = [c for v, c in zip(closed.jaxpr.constvars, closed.consts) if v in keep_consts]
    for c in consts:  # a tracer captured as a constant outlived its transformation
        if isinstance(c, Tracer):
            raise core.escaped_tracer_error(c)
    out_literals = [_literal_output(v) for v in jaxpr.outvars]
    dyn_outvars = [v for v, lit in zip(jaxpr.outvars, out_literals) if lit is None]
    flat = pe.convert_constvars_jaxpr(jaxpr.replace(outvars=dyn_outvars))
    ordered = _has_ordered(jaxpr)
    if result_infos is not None:
        result_infos = [r for r, lit in zip(result_infos, out_literals) if lit is None]
    if arg_names is not None:
        arg_names = [None] * len(jaxpr.constvars) + [arg_names[i] for i in kept]
    module = lowering.lower_jaxpr_to_module(ClosedJaxpr(flat, ()), name=f"jit_{_sym(name)}",
                                            ordered_effects=ordered, result_infos=result_infos,
                                            fun_name=name, arg_names=arg_names)
    text = module.text()
    exe = _compile_cached(text, module.host_callbacks)
    const_bufs = [c._device_buffer() if isinstance(c, Array) else
                  xla_backend.device_put(np.asarray(c, v.aval.dtype))
                  for v, c in zip(jaxpr.constvars, consts)]
    out = XlaExecutable(exe, text, kept, const_bufs, closed.in_avals, closed.out_avals,
                        out_literals, ordered)
    out.locs = module.locs
    return out


def _literal_output(v):
    if type(v) is core.Literal:
        return Array(np.asarray(v.val, v.aval.dtype), v.aval)
    return None


def _sym(name: str) -> str:
    """A function name as an MLIR symbol, spelled as JAX spells it (`<lambda>` -> `_lambda`)."""
    name = name.replace("<", "_").replace(">", "")
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "f"


# Executables by StableHLO text: programs that trace alike (a fresh closure per eager scan
# call, a re-created jit of the same function) compile once. DIDAX_COMPILE_CACHE=0 turns it
# off (the benchmark does, so that W4 measures a real XLA compile on every repetition).
_compile_cache: dict = {}
_COMPILE_CACHE_ON = os.environ.get("DIDAX_COMPILE_CACHE", "1") != "0"


# Result names (`{jax.result_info = "result[0]"}`, as Lowered.as_text shows them) do not
# change what XLA compiles: a module differing only by them shares the executable (the
# playground's recorder lowers with names the program the user's call compiled without).
_RESULT_INFO = re.compile(r' \{jax\.result_info = "[^"{}]*"\}')


def _compile_cached(text: str, host_callbacks):
    if host_callbacks or not _COMPILE_CACHE_ON:
        return xla_backend.compile(text, host_callbacks)
    key = _RESULT_INFO.sub("", text) if "jax.result_info" in text else text
    exe = _compile_cache.get(key)
    if exe is None:
        exe = _compile_cache[key] = xla_backend.compile(text)
    return exe


def compiled_for_jaxpr(closed: ClosedJaxpr, name: str, keep_unused: bool,
                       arg_names=None, result_info=None) -> XlaExecutable:
    """The executable of closed (once per jaxpr); arg_names / result_info name the
    module's inputs and outputs as JAX does (each module's text is a compile cache key)."""
    return _memoized("compiled", closed, keep_unused,
                     lambda: compile_closed_jaxpr(closed, name, keep_unused, result_info,
                                                  arg_names))


def arg_names(wrapped, args, kwargs) -> list[str]:
    """Per flat dynamic argument, the name JAX gives it (errors, the lowered module's
    argument locations): the parameter's name (or `rest[i]` for the i-th extra positional
    one) followed by the leaf's key path."""
    from didax._src.tree_util import keystr, tree_flatten_with_path  # noqa: PLC0415

    static = set(wrapped.static_argnums)
    named = [(n, a) for i, (n, a) in enumerate(zip(param_names(wrapped.fun, len(args)), args))
             if i not in static]
    named += [(k, v) for k, v in kwargs.items() if k not in wrapped.static_argnames]
    return [f"{base}{keystr(path)}" for base, a in named
            for path, _ in tree_flatten_with_path(a)[0]]


def result_infos(out_tree) -> list[str]:
    """JAX's names of the outputs: `result` plus each leaf's key path."""
    from didax._src.tree_util import keystr, tree_flatten_with_path  # noqa: PLC0415

    dummy = tree_unflatten(out_tree, list(range(out_tree.num_leaves)))
    return ["result" + keystr(path) for path, _ in tree_flatten_with_path(dummy)[0]]


# ----------------------------------------------------------------------------------------
# The jit API
# ----------------------------------------------------------------------------------------


class _CacheEntry:
    __slots__ = ("closed", "in_tree", "out_tree", "executable", "consts_lifted", "in_avals",
                 "donated", "stateful")

    def __init__(self, closed, in_tree, out_tree, in_avals, donated=None):
        self.closed, self.in_tree, self.out_tree = closed, in_tree, out_tree
        self.in_avals = in_avals
        self.executable = None
        self.donated = donated or (False,) * len(in_avals)
        # touches refs: runs through state discharge (state/discharge.py)
        self.stateful = state_types.touches_refs(closed.jaxpr)


def _hashable_static(x, i):
    try:
        hash(x)
    except TypeError:
        raise ValueError(f"Non-hashable static arguments are not supported. An error occurred "
                         f"while trying to hash an object of type {type(x)}, {x}. The error "
                         f"was:\nTypeError: unhashable type: '{type(x).__name__}'\n") from None
    return x


class JitWrapped:
    """What `jit(fun)` returns: callable, with `.trace/.lower/.eval_shape` (AOT stages)."""

    def __init__(self, fun, static_argnums, static_argnames, donate_argnums, keep_unused,
                 inline):
        self.fun = fun
        self.static_argnums = static_argnums
        self.static_argnames = static_argnames
        self.donate_argnums = donate_argnums
        self.keep_unused = keep_unused
        self.inline = inline
        self.name = fun_name(fun)
        self._cache, self._fast = _shared_caches(fun, (static_argnums, static_argnames,
                                                       donate_argnums, keep_unused, inline))
        self.trace_count = 0
        _all_jits.add(self)
        # jits made inside didax (jnp functions) are implementation details, not trace
        # cards; jit() decides by who calls it (jit(jnp.sin) in user code is recorded).
        self._recordable = True
        functools.update_wrapper(self, fun, updated=())

    def __repr__(self):
        return f"<PjitFunction of {self.fun!r}>"

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self, obj)

    # --- tracing
    def _split(self, args, kwargs):
        nargs = len(args)
        static = {(i + nargs if i < 0 else i) for i in self.static_argnums if
                  -nargs <= i < nargs}
        static_vals = tuple(_hashable_static(args[i], i) for i in sorted(static))
        dyn_args = tuple(a for i, a in enumerate(args) if i not in static)
        s_kw = tuple(sorted((k, _hashable_static(v, k)) for k, v in kwargs.items()
                            if k in self.static_argnames))
        dyn_kw = {k: v for k, v in kwargs.items() if k not in self.static_argnames}
        return static, static_vals, s_kw, dyn_args, dyn_kw

    def _trace(self, args, kwargs) -> tuple[_CacheEntry, list, tuple]:
        static, static_vals, s_kw, dyn_args, dyn_kw = self._split(args, kwargs)
        flat, in_tree = tree_flatten((dyn_args, dyn_kw))
        try:
            in_avals = tuple(shaped_abstractify(x) for x in flat)
        except (TypeError, OverflowError) as e:
            raise _argument_error(self.fun, args, dyn_kw, static, e) from None
        # Static values are keyed with their types too (3 and 3.0 trace separately, as JAX).
        s_types = (tuple(type(v) for v in static_vals), tuple(type(v) for _, v in s_kw)
                   ) if static_vals or s_kw else ()
        key = (static_vals, s_kw, s_types, in_tree, in_avals)
        layouts = sharding.arg_layouts(flat) if core.has_special(flat) else None
        if layouts is not None:  # (shard_map in the body reads its arguments' layouts)
            key += (layouts,)
        # The recorder traces anew (where the user's frames can be seen), into a cache of
        # its own: calls with the same types still share one body, as under JAX.
        cache = _fresh.cache.setdefault(id(self._cache), {}) if _fresh.depth else self._cache
        entry = cache.get(key)
        if entry is None:
            if config.jax_explain_cache_misses:
                _explain_miss(self.fun, cache, key)
            entry = cache[key] = self._make_entry(args, static, dict(s_kw), in_tree, in_avals,
                                                  layouts)
        return entry, flat, key

    def _make_entry(self, args, static, static_kw, in_tree, in_avals,
                    layouts=None) -> _CacheEntry:
        fun = self.fun

        def f(*dyn, **kw):
            if layouts is not None:
                sharding.note_traced_layouts(tree_flatten((dyn, kw))[0], layouts)
            it = iter(dyn)
            full = [args[i] if i in static else next(it) for i in range(len(args))]
            return fun(*full, **kw, **static_kw)

        flat_fun, store = flatten_fun(f, in_tree)
        self.trace_count += 1
        jaxpr, _, consts = pe.trace_to_jaxpr_dynamic(flat_fun, list(in_avals), "jit")
        _check_no_ref_outputs(fun, jaxpr, lambda: arg_names(self, args, {}))
        closed = ClosedJaxpr(jaxpr, consts)
        donated = self._donated_leaves(args, static, in_tree) if self.donate_argnums else None
        return _CacheEntry(closed, in_tree, store["out_tree"], in_avals, donated)

    def _donated_leaves(self, args, static, in_tree) -> tuple[bool, ...]:
        """donate_argnums as one flag per flat dynamic input (the jaxpr's donated_invars).
        After a top-level call the donated input Arrays are deleted, as JAX deletes them."""
        n = len(args)
        donate = {i % n for i in self.donate_argnums if -n <= i < n}
        flags: list[bool] = []
        for i, a in enumerate(args):
            if i not in static:
                flags += [i in donate] * len(tree_flatten(a)[0])
        return tuple(flags) + (False,) * (in_tree.num_leaves - len(flags))

    # --- calling
    def __call__(self, *args, **kwargs):
        if _call_hooks and self._recordable:
            return _call_hooks[-1]("jit", self.fun, self._call, args, kwargs, (), {},
                                   static=self.static_argnums)
        if debug_nans.ACTIVE[0] and core.trace_ctx.trace is core.eval_trace:
            out = self._call(*args, **kwargs)  # then checked as JAX's pjit checks it
            debug_nans.check_jit(self.fun, args, kwargs, out)
            return out
        if not kwargs and core.trace_ctx.trace is core.eval_trace:
            leaves: list = []
            sig: list = []
            if _signature(args, leaves, sig):
                fast = self._fast.get(tuple(sig))
                if fast is not None:
                    return fast(leaves)
                return self._fast_miss(args, leaves, tuple(sig))
        return self._call(*args, **kwargs)

    def _call(self, *args, **kwargs):
        if config.jax_disable_jit:
            return self.fun(*args, **kwargs)
        entry, flat, _ = self._trace(args, kwargs)
        if entry.stateful:
            return tree_unflatten(entry.out_tree, self._call_stateful(entry, flat, args,
                                                                      kwargs))
        if core.trace_ctx.trace is core.eval_trace and not _has_tracer(flat):
            mesh = _constraint_mesh(entry.closed)
            if mesh is not None and not core.has_special(flat):  # partitioned over a mesh
                outs = sharded_exec.call_sharded(entry.closed, flat, self.name, mesh)
                return tree_unflatten(entry.out_tree, outs)
        if core.trace_ctx.trace is core.eval_trace and not _has_tracer(flat) and \
                not core.has_special(flat):
            exe = entry.executable
            if exe is None:
                exe = entry.executable = compiled_for_jaxpr(
                    entry.closed, self.name, self.keep_unused, arg_names(self, args, kwargs),
                    result_infos(entry.out_tree))
            outs = exe.call(flat)
            if self.donate_argnums:
                _delete_donated(flat, entry.donated)
        else:
            outs = self.bind(entry, flat)
        return tree_unflatten(entry.out_tree, outs)

    def _fast_miss(self, args, leaves, sig):
        """A top-level call of Arrays in tuples/lists/dicts whose signature has no fast
        entry yet: trace and compile as usual, then remember a direct call for it."""
        if config.jax_disable_jit or self.static_argnums or self.donate_argnums:
            return self._call(*args)
        entry, _, _ = self._trace(args, {})
        if entry.stateful:
            return self._call(*args)
        if entry.executable is None:
            entry.executable = compiled_for_jaxpr(entry.closed, self.name, self.keep_unused,
                                                  arg_names(self, args, {}),
                                                  result_infos(entry.out_tree))
        fast = self._fast[sig] = _make_fast(entry)
        return fast(leaves)

    def bind(self, entry: _CacheEntry, flat):
        closed, refs = state_types.lift_ref_consts(entry.closed)  # trailing, as JAX
        closed, lifted = pe.close_over_consts(closed)
        donated = (False,) * len(lifted) + entry.donated + (False,) * len(refs)
        return jit_p.bind(*lifted, *flat, *refs, jaxpr=closed, name=self.name,
                          donated_invars=donated, keep_unused=self.keep_unused,
                          inline=self.inline)

    def _call_stateful(self, entry: _CacheEntry, flat, args, kwargs) -> list:
        """A call of a program touching refs: eagerly with its refs updated in place,
        staged as a jit equation with ref operands, or under a transformation as reads,
        the discharged program and writes (state/discharge.py)."""
        _check_distinct_refs(self.fun, flat, entry.closed.consts,
                             lambda: arg_names(self, args, kwargs))
        trace = core.trace_ctx.trace
        if trace is core.eval_trace and not _has_tracer(flat):
            return state_hooks["call"](entry.closed, flat, self.name, self.keep_unused)
        if isinstance(trace, pe.DynamicJaxprTrace):
            return self.bind(entry, flat)
        return state_hooks["bind"](entry.closed, flat, self.name, self.keep_unused,
                                   self.inline)

    # --- AOT
    def trace(self, *args, **kwargs):
        from didax._src import stages  # noqa: PLC0415

        return stages.trace(self, args, kwargs)

    def lower(self, *args, **kwargs):
        return self.trace(*args, **kwargs).lower()

    def eval_shape(self, *args, **kwargs):
        entry, _, _ = self._trace(args, kwargs)
        shapes = [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
                  for a in entry.closed.out_avals]
        return tree_unflatten(entry.out_tree, shapes)

    def clear_cache(self):
        self._cache.clear()
        self._fast.clear()

    def _cache_size(self):
        return len(self._cache)


class _Fresh:
    def __init__(self):
        self.depth = 0
        self.cache: dict = {}  # id(a jit's own cache) -> {key: entry} while depth > 0


_fresh = _Fresh()


class fresh_traces:
    """Within the block, jitted functions are traced again into a temporary cache instead
    of reusing (or filling) their own, so their equations carry this trace's locations."""

    def __enter__(self):
        _fresh.depth += 1

    def __exit__(self, *exc):
        _fresh.depth -= 1
        if _fresh.depth == 0:
            _fresh.cache.clear()
        return False


# Every jitted function, so a configuration change (x64, promotion mode, PRNG flags, ...)
# can drop traces made under the old configuration: tracing depends on it.
_all_jits: weakref.WeakSet = weakref.WeakSet()


def _config_changed(name=None, value=None) -> None:
    for j in list(_all_jits):
        j.clear_cache()
    _shared.clear()


# Traces and executables are shared by every jit of the same function with the same
# options, as JAX's: `jax.jit(f)(x)` written inside a loop traces f once.
_shared: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _shared_caches(fun, options) -> tuple[dict, dict]:
    try:
        per_fun = _shared.get(fun)
        if per_fun is None:
            per_fun = _shared[fun] = {}
        caches = per_fun.get(options)
        if caches is None:
            caches = per_fun[options] = ({}, {})
        return caches
    except TypeError:  # not weakly referenceable or not hashable: caches of its own
        return {}, {}


config.add_observer(_config_changed)


def _make_fast(entry: _CacheEntry) -> Callable:
    """A specialized call for one signature: buffers in, Arrays out, nothing else."""
    exe = entry.executable
    out_tree = entry.out_tree
    simple = (not exe.const_bufs and exe.all_dynamic and not exe.ordered
              and exe.kept == list(range(len(exe.in_avals))))
    if not simple:
        if out_tree.num_leaves == 1 and out_tree.num_nodes == 1:
            return lambda args: exe.call(args)[0]
        return lambda args: tree_unflatten(out_tree, exe.call(args))
    execute, handlers, out_avals = exe.exe.execute_sharded, exe.handlers, exe.out_avals
    single = out_tree.num_leaves == 1 and out_tree.num_nodes == 1
    if single and isinstance(out_avals[0].dtype, np.dtype):
        return _make_fast1(execute, handlers, out_avals[0])
    flat_tuple = out_tree == tree_structure((0,) * len(out_avals))

    def fast(args):
        bufs = [a._buf if a._buf is not None else a._device_buffer() for a in args]
        outs = execute(bufs).consume_with_handlers(handlers)
        arrays = [_from_buffer(b, av) for b, av in zip(outs, out_avals)]
        if single:
            return arrays[0]
        return tuple(arrays) if flat_tuple else tree_unflatten(out_tree, arrays)

    return fast


def _make_fast1(execute, handlers, aval) -> Callable:
    """_make_fast for one plain-dtype output (the Array built inline)."""
    new = Array.__new__

    def fast1(args):
        bufs = [a._buf if a._buf is not None else a._device_buffer() for a in args]
        (b,) = execute(bufs).consume_with_handlers(handlers)
        out = new(Array)
        out._npy = None
        out._buf = b
        out._device = None
        out.aval = aval
        return out

    return fast1


def _delete_donated(flat, donated) -> None:
    """Donated input Arrays are consumed by the call, as JAX's (using one afterwards
    raises "Array has been deleted")."""
    for x, d in zip(flat, donated):
        if d and type(x) is Array:
            x.delete()


def _signature(x, leaves: list, sig: list) -> bool:
    """Flattens Arrays nested in tuples, lists and dicts (what jitted functions are called
    with) into leaves, in tree_flatten's order, and appends to sig the structure and each
    leaf's (interned) aval: a dict key for the fast path. False for anything else."""
    t = type(x)
    if t is Array:
        leaves.append(x)
        sig.append(x.aval)
        return True
    if t is tuple or t is list:
        sig.append(t)
        sig.append(len(x))
        for v in x:
            if not _signature(v, leaves, sig):
                return False
        return True
    if t is dict:
        try:
            keys = sorted(x)
        except TypeError:
            return False
        sig.append(tuple(keys))
        for k in keys:
            if not _signature(x[k], leaves, sig):
                return False
        return True
    return False


_constraint_meshes: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _constraint_mesh(closed: ClosedJaxpr):
    """The mesh a jitted program's sharding constraints lay values out over (or None)."""
    try:
        return _constraint_meshes[closed]
    except KeyError:
        meshes = meshes_in(closed.jaxpr)
        out = _constraint_meshes[closed] = meshes[0] if meshes else None
        return out


def _has_tracer(flat) -> bool:
    for x in flat:
        if isinstance(x, Tracer):
            return True
    return False


def jit(fun: Callable | None = None, *, static_argnums: int | Sequence[int] | None = None,
        static_argnames: str | Sequence[str] | None = None,
        donate_argnums: int | Sequence[int] | None = None,
        donate_argnames=None, keep_unused: bool = False, device=None, backend=None,
        inline: bool = False, in_shardings=None, out_shardings=None, compiler_options=None,
        abstracted_axes=None) -> JitWrapped:
    """Compiles fun with XLA: traced once per (static args, input types), then cached.
    Without fun, returns a decorator (`@jit(static_argnums=1)`)."""
    if fun is None:
        return functools.partial(
            jit, static_argnums=static_argnums, static_argnames=static_argnames,
            donate_argnums=donate_argnums, donate_argnames=donate_argnames,
            keep_unused=keep_unused, device=device, backend=backend, inline=inline,
            in_shardings=in_shardings, out_shardings=out_shardings,
            compiler_options=compiler_options, abstracted_axes=abstracted_axes)
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun}")
    static_argnums = () if static_argnums is None else ensure_index_tuple(static_argnums)
    if isinstance(static_argnames, str):
        static_argnames = (static_argnames,)
    static_argnames = tuple(static_argnames or ())
    donate = () if donate_argnums is None else ensure_index_tuple(donate_argnums)
    if isinstance(donate_argnames, str):
        donate_argnames = (donate_argnames,)
    donate_argnames = tuple(donate_argnames or ())
    _validate_arg_spec(fun, static_argnums, static_argnames, donate, donate_argnames)
    static_argnums, static_argnames = _infer_static(fun, static_argnums, static_argnames)
    donate, donate_argnames = _infer_static(fun, donate, donate_argnames)
    both = set(static_argnames) & set(donate_argnames)
    if both:
        raise ValueError("static_argnames and donate_argnames cannot intersect. Argument "
                         f"names {both} appear in both static_argnames and donate_argnames")
    if set(static_argnums) & set(donate):
        raise ValueError(f"`static_argnums` {sorted(set(static_argnums))} and "
                         f"`donate_argnums` {sorted(set(donate))} cannot intersect.")
    wrapped = JitWrapped(fun, static_argnums, static_argnames, donate, keep_unused, inline)
    wrapped._recordable = not source_info._is_internal(sys._getframe(1).f_code.co_filename)
    return wrapped


def _validate_arg_spec(fun, static_nums, static_names, donate_nums, donate_names) -> None:
    """Argument numbers and names must exist in fun's signature (ValueError, as JAX): any
    number is fine with *args, any keyword name with **kwargs (but never a positional-only
    parameter's name)."""
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        return
    kinds = inspect.Parameter
    n_pos = sum(p.kind in (kinds.POSITIONAL_ONLY, kinds.POSITIONAL_OR_KEYWORD) for p in params)
    var_pos = any(p.kind is kinds.VAR_POSITIONAL for p in params)
    var_kw = any(p.kind is kinds.VAR_KEYWORD for p in params)
    by_name = {p.name: p.kind for p in params}
    for label, nums in (("static_argnums", static_nums), ("donate_argnums", donate_nums)):
        if nums and not var_pos and (max(nums) >= n_pos or min(nums) < -n_pos):
            raise ValueError(f"Jitted function has {label}={nums}, but only accepts {n_pos} "
                             "positional arguments.")
    for label, names in (("static_argnames", static_names), ("donate_argnames", donate_names)):
        pos_only = {n for n in names if by_name.get(n) in (kinds.POSITIONAL_ONLY,
                                                            kinds.VAR_POSITIONAL)}
        if pos_only:
            raise ValueError(f"Jitted function has invalid argnames {pos_only} in {label}. "
                             "These are positional-only")
        unknown = {n for n in names if n not in by_name
                   or by_name[n] is kinds.VAR_KEYWORD}
        if unknown and not var_kw:
            raise ValueError(f"Jitted function has invalid argnames {unknown} in {label}. "
                             "Function does not take these args.")


def _infer_static(fun, nums, names):
    """static_argnums and static_argnames each imply the other (by signature)."""
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        return nums, names
    pos = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    names = set(names)
    nums = set(nums)
    for i in list(nums):
        if 0 <= i < len(pos):
            names.add(pos[i].name)
    for i, p in enumerate(pos):
        if p.name in names:
            nums.add(i)
    return tuple(sorted(nums)), tuple(sorted(names))
