"""`jax.checkpoint` / `jax.remat` (gradient checkpointing) and `jax.ad_checkpoint`.

`checkpoint(f)` stages f as one `remat2` equation carrying f's jaxpr. Its rules follow
JAX's (jax/_src/ad_checkpoint.py):

- eager impl evaluates the jaxpr; JVP is the remat of the JVP jaxpr; batching and DCE act
  on the inner jaxpr; lowering inlines it;
- partial evaluation (inside linearize, vjp, grad) is where rematerialization happens: the
  known part runs now (inline, not wrapped), but only values a *policy* allows
  (`policy(prim, *avals, **params) -> bool`; none by default) are saved as residuals,
  each behind a `reduce_precision` as JAX inserts; everything else the derivative needs
  is recomputed inside a new `remat2[differentiated=True]` equation from the inputs;
- transpose transposes the inner jaxpr, forward recomputation included, into another
  `remat2[differentiated=True]`.

Also `checkpoint_name` (the `name` primitive that name-based policies read) and the
policies of `jax.checkpoint_policies` (`saved_residuals` is in api_extras, above vjp).

May import core, the interpreters, lax, pjit, api_util, tree_util (libraries layer).
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Sequence

from didax._src import core, dtypes
from didax._src.api_util import ensure_index_tuple, flatten_fun, shaped_abstractify
from didax._src.core import ClosedJaxpr, Jaxpr, JaxprEqn, Var
from didax._src.interpreters import ad, lowering
from didax._src.interpreters import partial_eval as pe
from didax._src.lax import lax
from didax._src.lax._define import VECTORIZED, def_primitive
from didax._src.lax.reductions import dot_general_p
from didax._src.pjit import batch_jaxpr
from didax._src.tree_util import tree_flatten, tree_map, tree_unflatten

# ----------------------------------------------------------------------------------------
# Policies
# ----------------------------------------------------------------------------------------


def everything_saveable(*_, **__) -> bool:
    return True


def nothing_saveable(*_, **__) -> bool:
    return False


class DotsSaveable:
    """Saves the results of matrix products (optionally only those with no batch dims)."""

    def __init__(self, only_if_no_batch_dims: bool):
        self.only_if_no_batch_dims = only_if_no_batch_dims

    def __call__(self, prim, *avals, **params) -> bool:
        if prim is not dot_general_p:
            return False
        if not self.only_if_no_batch_dims:
            return True
        (_, _), (lhs_b, rhs_b) = params["dimension_numbers"]
        return not lhs_b and not rhs_b

    def __repr__(self):
        return f"DotsSaveable(only_if_no_batch_dims={self.only_if_no_batch_dims})"


class SaveOnlyTheseNames:
    def __init__(self, names):
        self.saveable_names = frozenset(names)

    def __call__(self, prim, *_, **params) -> bool:
        return prim is name_p and params["name"] in self.saveable_names

    def __repr__(self):
        return f"SaveOnlyTheseNames(saveable_names={self.saveable_names})"


class SaveAnyNamesButThese:
    def __init__(self, names):
        self.names = frozenset(names)

    def __call__(self, prim, *_, **params) -> bool:
        return prim is name_p and params["name"] not in self.names

    def __repr__(self):
        return f"SaveAnyNamesButThese(names={self.names})"


def save_only_these_names(*names: str) -> SaveOnlyTheseNames:
    return SaveOnlyTheseNames(names)


def save_any_names_but_these(*names: str) -> SaveAnyNamesButThese:
    return SaveAnyNamesButThese(names)


def save_anything_except_these_names(*names: str) -> Callable:
    """JAX 0.10's version of this policy saves everything, names given or not (its source
    marks it as not working); didax does what JAX does."""
    del names
    return lambda *_, **__: True


def save_from_both_policies(policy_1: Callable, policy_2: Callable) -> Callable:
    def policy(prim, *args, **params):
        return policy_1(prim, *args, **params) or policy_2(prim, *args, **params)
    return policy


def save_and_offload_only_these_names(*, names_which_can_be_saved=(),
                                      names_which_can_be_offloaded=(),
                                      offload_src="device", offload_dst="pinned_host"):
    """Host offloading is a memory placement; on a CPU it saves what it would offload."""
    del offload_src, offload_dst
    return SaveOnlyTheseNames((*names_which_can_be_saved, *names_which_can_be_offloaded))


def offload_dot_with_no_batch_dims(offload_src, offload_dst):
    del offload_src, offload_dst
    return DotsSaveable(True)


class checkpoint_policies:  # noqa: N801 - JAX's name (a namespace of policies)
    everything_saveable = staticmethod(everything_saveable)
    nothing_saveable = staticmethod(nothing_saveable)
    dots_saveable = checkpoint_dots = DotsSaveable(False)
    dots_with_no_batch_dims_saveable = DotsSaveable(True)
    checkpoint_dots_with_no_batch_dims = dots_with_no_batch_dims_saveable
    save_only_these_names = staticmethod(save_only_these_names)
    save_any_names_but_these = staticmethod(save_any_names_but_these)
    save_anything_except_these_names = staticmethod(save_anything_except_these_names)
    save_from_both_policies = staticmethod(save_from_both_policies)
    save_and_offload_only_these_names = staticmethod(save_and_offload_only_these_names)
    offload_dot_with_no_batch_dims = staticmethod(offload_dot_with_no_batch_dims)


# ----------------------------------------------------------------------------------------
# checkpoint_name: the `name` primitive
# ----------------------------------------------------------------------------------------


def _name_jvp(primals, tangents, *, name):
    return name_p.bind(primals[0], name=name), tangents[0]


name_p = def_primitive(
    "name", abstract_eval=lambda x, *, name: x, impl=None,
    eager_impl=lambda x, *, name: x, jvp=_name_jvp,
    transpose=None, batch=VECTORIZED, lower=lambda ctx, x, *, name: x)
ad.primitive_transposes[name_p] = lambda ct, x, *, name: [ct]


def checkpoint_name(x, name: str):
    """Names every array in x for the name-based checkpoint policies (an identity)."""
    return tree_map(lambda v: name_p.bind(v, name=name), x)


# ----------------------------------------------------------------------------------------
# The remat primitive
# ----------------------------------------------------------------------------------------


def _remat_abstract_eval(*avals, jaxpr: Jaxpr, prevent_cse, differentiated, policy):
    return [v.aval for v in jaxpr.outvars]


def _remat_impl(*args, jaxpr: Jaxpr, prevent_cse, differentiated, policy):
    return core.eval_jaxpr(jaxpr, (), *args)


def _bind(args, jaxpr: Jaxpr, prevent_cse, differentiated, policy) -> list:
    return remat_p.bind(*args, jaxpr=jaxpr, prevent_cse=prevent_cse,
                        differentiated=differentiated, policy=policy)


def _remat_jvp(primals, tangents, *, jaxpr, prevent_cse, differentiated, policy):
    nonzeros = [type(t) is not ad.Zero for t in tangents]
    jvp_closed, out_nz = ad.jvp_jaxpr(ClosedJaxpr(jaxpr, ()), nonzeros, instantiate=False)
    jvp_jaxpr = pe.convert_constvars_jaxpr(jvp_closed.jaxpr)
    nz_tangents = [t for t in tangents if type(t) is not ad.Zero]
    outs = _bind([*jvp_closed.consts, *primals, *nz_tangents], jvp_jaxpr, prevent_cse,
                 differentiated, policy)
    n = len(jaxpr.outvars)
    p_out, t_it = outs[:n], iter(outs[n:])
    t_out = [next(t_it) if nz else ad.Zero(v.aval.to_tangent_aval())
             for v, nz in zip(jaxpr.outvars, out_nz)]
    return p_out, t_out


def _remat_batch(axis_data, vals, dims, *, jaxpr, prevent_cse, differentiated, policy):
    in_dims = [None if d is None else d % len(core.get_aval(v).shape)
               for v, d in zip(vals, dims)]
    batched, out_dims = batch_jaxpr(ClosedJaxpr(jaxpr, ()), axis_data, in_dims, True)
    outs = _bind([*batched.consts, *vals], pe.convert_constvars_jaxpr(batched.jaxpr),
                 prevent_cse, differentiated, policy)
    return outs, out_dims


def _remat_lower(ctx, *args, jaxpr, prevent_cse, differentiated, policy):
    return lowering.lower_jaxpr_body(ctx.fn, jaxpr, (), args)


def _remat_transpose(cts, *args, jaxpr, prevent_cse, differentiated, policy):
    linear = [ad.is_undefined_primal(a) for a in args]
    cts = [ad.instantiate_zeros(c) for c in cts]
    t_closed = ad.transpose_jaxpr(ClosedJaxpr(jaxpr, ()), linear)
    nonlin = [a for a in args if not ad.is_undefined_primal(a)]
    outs = _bind([*t_closed.consts, *nonlin, *cts], pe.convert_constvars_jaxpr(t_closed.jaxpr),
                 prevent_cse, True, policy)
    it = iter(outs)
    return [next(it) if lin else None for lin in linear]


def _remat_dce(used_outputs, eqn: JaxprEqn):
    if not any(used_outputs):
        return [False] * len(eqn.invars), None
    dced, used_inputs = pe.dce_jaxpr(eqn.params["jaxpr"], used_outputs)
    new_eqn = eqn.replace(invars=[v for v, u in zip(eqn.invars, used_inputs) if u],
                          outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
                          params=dict(eqn.params, jaxpr=dced))
    return used_inputs, new_eqn


remat_p = def_primitive(
    "remat2", abstract_eval=_remat_abstract_eval, impl=None, eager_impl=_remat_impl,
    jvp=_remat_jvp, transpose=_remat_transpose, batch=_remat_batch, lower=_remat_lower,
    multiple_results=True)
remat_p.is_higher_order = True
pe.dce_rules[remat_p] = _remat_dce


# --- partial evaluation: known work runs now, the rest is recomputed under remat


def _remat_partial_eval(trace: pe.JaxprTrace, *args, jaxpr, prevent_cse, differentiated,
                        policy):
    unknowns = tuple(trace.is_unknown(a) for a in args)
    known, staged, out_unknowns, n_saved, used_staged = _split(
        jaxpr, unknowns, policy or nothing_saveable)
    known_args = [a for a, u in zip(args, unknowns) if not u]
    with core.set_current_trace(trace.parent_trace):
        if _splitting[0]:  # a remat inside a remat being split: its known part stays one
            known_outs = _bind([*known.consts, *known_args],  # (as JAX keeps it)
                               pe.convert_constvars_jaxpr(known.jaxpr), prevent_cse,
                               differentiated, policy)
        else:
            known_outs = core.eval_jaxpr(known.jaxpr, known.consts, *known_args)
    n_known_out = len(known_outs) - n_saved
    residuals = [*known_outs[n_known_out:], *known.consts]
    staged_args = [a for a, s in zip(args, used_staged[len(residuals):]) if s]
    residuals = [r for r, s in zip(residuals, used_staged) if s]
    atoms = [trace.to_atom(trace.instantiate(x)) for x in [*residuals, *staged_args]]
    params = dict(jaxpr=staged, prevent_cse=prevent_cse, differentiated=True, policy=policy)
    staged_outs = iter(trace.emit(remat_p, atoms, [v.aval for v in staged.outvars], params))
    known_it = iter(known_outs[:n_known_out])
    return [next(staged_outs) if uk else next(known_it) for uk in out_unknowns]


pe.partial_eval_rules[remat_p] = _remat_partial_eval
_splitting = [0]  # > 0 while a remat's jaxpr is being split


def _split(jaxpr: Jaxpr, unknowns, policy):
    """Partial evaluation of jaxpr with rematerialization. Returns (known: known inputs ->
    known outputs + saved values, staged: saved values + known's consts + inputs ->
    unknown outputs, out_unknowns, the number of saved values, which staged inputs are
    used).

    The ordinary split (partial_eval_jaxpr_nounits, every primitive by its own rule) says
    which known values the unknown side reads; of the equations computing them, those the
    policy saves become residuals, and the rest are replayed in the staged jaxpr."""
    _splitting[0] += 1
    try:
        known, unknown, out_unknowns, res_avals = pe.partial_eval_jaxpr_nounits(
            ClosedJaxpr(jaxpr, ()), unknowns, instantiate=False)
    finally:
        _splitting[0] -= 1
    kj = known.jaxpr
    n_res = len(res_avals)
    n_known_out = len(kj.outvars) - n_res
    res_atoms = kj.outvars[n_known_out:]
    saved, replay = _saved_and_replayed(kj, res_atoms, policy)
    # staged: saved values, known's consts, then every input in order (known ones are the
    # known jaxpr's invars, unknown ones the unknown jaxpr's)
    uj = unknown.jaxpr
    unknown_in = iter(uj.invars[n_res:])
    known_in = iter(kj.invars)
    ins = [next(unknown_in) if u else next(known_in) for u in unknowns]
    env = dict(zip(uj.invars[:n_res], res_atoms))
    eqns = replay + [_substitute(e, env) for e in uj.eqns]
    outs = [env.get(v, v) if type(v) is Var else v for v in uj.outvars]
    staged = Jaxpr((), [*saved, *kj.constvars, *ins], outs, eqns)
    staged, used = pe.dce_jaxpr(staged, None, instantiate=False)
    known_j, _ = pe.dce_jaxpr(kj.replace(outvars=[*kj.outvars[:n_known_out], *saved]),
                              None, instantiate=True)
    known_j = _insert_reduce_precision(known_j, len(saved))
    return (ClosedJaxpr(known_j, known.consts), staged, out_unknowns, len(saved), used)


def _saved_and_replayed(kj: Jaxpr, res_atoms, policy) -> tuple[list, list]:
    """Walking the known jaxpr backwards from the residuals it must provide: (the values
    saved, in program order; the equations to replay, in program order)."""
    produced = {v: e for e in kj.eqns for v in e.outvars}
    need = [a for a in res_atoms if type(a) is Var and a in produced]
    seen: set = set()
    saved_set: set = set()
    replay_set: set = set()
    for e in kj.eqns:  # effects (a debug print, a check) happen again when recomputing
        if e.effects:
            replay_set.add(id(e))
            need.extend(a for a in e.invars if type(a) is Var and a in produced)
    while need:
        v = need.pop()
        if v in seen:
            continue
        seen.add(v)
        eqn = produced[v]
        if policy(eqn.primitive, *[a.aval for a in eqn.invars], **eqn.params):
            saved_set.add(v)
        elif id(eqn) not in replay_set:
            replay_set.add(id(eqn))
            need.extend(a for a in eqn.invars if type(a) is Var and a in produced)
    saved = [v for e in kj.eqns for v in e.outvars if v in saved_set]
    replay = []
    for e in kj.eqns:
        if id(e) in replay_set:
            # a nested checkpoint's known part is replayed inline (as JAX recomputes it)
            nested = e.primitive is remat_p and not e.params["differentiated"]
            replay.extend(_inlined(e) if nested else [e])
    return saved, replay


def _inlined(eqn: JaxprEqn) -> list:
    """The equations of eqn's jaxpr, reading eqn's operands and writing its outputs
    (fresh variables in between)."""
    inner: Jaxpr = eqn.params["jaxpr"]
    made = {v for e in inner.eqns for v in e.outvars}
    if not all(type(o) is Var and o in made for o in inner.outvars) or \
            len(set(inner.outvars)) != len(inner.outvars):
        return [eqn]  # (an output forwarding an input: kept as it is)
    env: dict = dict(zip(inner.invars, eqn.invars))
    for o, v in zip(inner.outvars, eqn.outvars):
        if type(o) is Var and o not in env:
            env[o] = v
    out = []
    for e in inner.eqns:
        outs = [env.setdefault(v, Var(v.aval)) for v in e.outvars]
        ins = [env.get(a, a) if type(a) is Var else a for a in e.invars]
        out.append(e.replace(invars=ins, outvars=outs))
    return out


def _substitute(eqn: JaxprEqn, env: dict) -> JaxprEqn:
    if not any(type(a) is Var and a in env for a in eqn.invars):
        return eqn
    return eqn.replace(invars=[env.get(a, a) if type(a) is Var else a for a in eqn.invars])


def _insert_reduce_precision(jaxpr: Jaxpr, num_res: int) -> Jaxpr:
    """Each floating residual leaves its producer through a `reduce_precision` to its own
    format (as JAX inserts, so forward and backward passes agree on its value)."""
    res = jaxpr.outvars[len(jaxpr.outvars) - num_res:]
    eqns = list(jaxpr.eqns)
    invars = list(jaxpr.invars)
    used = {a for e in eqns for a in e.invars if type(a) is Var}
    for v in res:
        if type(v) is not Var or not dtypes.is_inexact(v.aval.dtype) or v not in used:
            continue
        info = dtypes.finfo(v.aval.dtype)
        params = dict(exponent_bits=info.nexp, mantissa_bits=info.nmant)
        new = Var(v.aval)
        if v in invars:
            invars[invars.index(v)] = new
            eqns.insert(0, core.new_eqn([new], [v], lax.reduce_precision_p, params))
            continue
        i = next(i for i, e in enumerate(eqns) if v in e.outvars)
        producer = eqns[i]
        if producer.primitive is lax.reduce_precision_p and producer.params == params:
            continue
        eqns[i] = producer.replace(outvars=[new if o is v else o for o in producer.outvars])
        eqns.insert(i + 1, core.new_eqn([new], [v], lax.reduce_precision_p, params,
                                        src=producer.source_info))
    return jaxpr.replace(invars=invars, eqns=eqns)


# ----------------------------------------------------------------------------------------
# The API
# ----------------------------------------------------------------------------------------


def checkpoint(fun: Callable, *, prevent_cse: bool | Sequence[bool] = True,
               policy: Callable | None = None,
               static_argnums: int | Sequence[int] = ()) -> Callable:
    """`jax.checkpoint`: fun, whose derivatives recompute what `policy` does not save."""
    static = ensure_index_tuple(static_argnums)

    @functools.wraps(fun)
    def fun_remat(*args, **kwargs):
        dyn = [a for i, a in enumerate(args) if i not in static]

        def body(*dyn_args, **kw):
            it = iter(dyn_args)
            return fun(*[args[i] if i in static else next(it) for i in range(len(args))],
                       **kw)

        flat, in_tree = tree_flatten((tuple(dyn), kwargs))
        avals = tuple(shaped_abstractify(x) for x in flat)
        key = (in_tree, avals, tuple(args[i] for i in static if i < len(args)))
        jaxpr, consts, out_tree = _traced(fun, key, lambda: _trace(body, in_tree, avals))
        outs = _bind([*consts, *flat], jaxpr, prevent_cse, False, policy)
        return tree_unflatten(out_tree, outs)

    return fun_remat


def _trace(body: Callable, in_tree, avals) -> tuple:
    flat_fun, store = flatten_fun(body, in_tree)
    jaxpr, _, consts = pe.trace_to_jaxpr_dynamic(flat_fun, list(avals), "checkpoint")
    return pe.convert_constvars_jaxpr(jaxpr), consts, store["out_tree"]


# As JAX's, a checkpointed function is traced once per function and input types (its
# jaxpr is reused by later calls, even by checkpoint wrappers with another policy).
_trace_cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _traced(fun: Callable, key, trace: Callable) -> tuple:
    try:
        table = _trace_cache.setdefault(fun, {})
        hash(key)
    except TypeError:
        return trace()
    hit = table.get(key)
    if hit is None:
        hit = trace()
        if any(isinstance(c, core.Tracer) for c in hit[1]):
            return hit  # (closes over values of an enclosing trace: not reusable)
        table[key] = hit
    return hit


remat = checkpoint
