"""`lax.cond` and `lax.switch`, and the `cond` primitive they bind.

`cond` (printed `cond[branches=(...)]`) takes an int32 branch index followed by the shared
operands (the branches' closed-over constants first) and carries one ClosedJaxpr per branch.
Its rules: eager evaluation of the selected branch; JVP (branches JVP'd together, their
nonzero tangent outputs unioned); batching (a batched index becomes a select over every
branch, otherwise the branches are batched); partial evaluation (each branch split into a
known part producing residuals — merged across branches, unused slots filled with
`empty2` — and an unknown part consuming them); transpose (of each branch); DCE; and
lowering to `stablehlo.case` with a clamped index.

May import core, the interpreters, tree_util, api_util, array, lax and the control-flow
helpers.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import numpy as np

from didax._src import core, dtypes
from didax._src.config import config
from didax._src.core import ClosedJaxpr, Var
from didax._src.interpreters import ad, batching, lowering
from didax._src.interpreters import partial_eval as pe
from didax._src.interpreters.ad import Zero
from didax._src.lax import lax as lax_
from didax._src.lax import shapes
from didax._src.lax._define import def_primitive
from didax._src.lax.control_flow import common, eager
from didax._src.lax.control_flow.common import closed_call, memoized
from didax._src.state import types as state_types
from didax._src.tree_util import tree_flatten, tree_unflatten
from didax._src.util import split_list

_no_operand = object()

# ----------------------------------------------------------------------------------------
# The API
# ----------------------------------------------------------------------------------------


def _operands(operands, operand):
    if operand is not _no_operand:
        if operands:
            raise TypeError("if 'operand' keyword is passed then no positional operands can "
                            f"be passed, got operand={operand!r} and positional operands "
                            f"{operands}")
        return (operand,)
    return operands


def cond(pred, true_fun: Callable, false_fun: Callable, *operands, operand=_no_operand):
    """true_fun(*operands) if pred else false_fun(*operands), as one `cond` primitive."""
    if not (callable(true_fun) and callable(false_fun)):
        if callable(false_fun) and len(operands) == 2 and callable(operands[1]):
            x_true, f_true, x_false, f_false = true_fun, false_fun, *operands
            return cond(pred, lambda x, _: f_true(x), lambda _, x: f_false(x), x_true,
                        x_false)
        raise TypeError("lax.cond: true_fun and false_fun arguments should be callable.")
    operands = _operands(operands, operand)
    pred = _check_pred(pred)
    if config.jax_disable_jit and core.concrete_value_of(pred) is not None:
        return true_fun(*operands) if bool(pred) else false_fun(*operands)
    index = common.convert(pred, np.int32)
    return _bind_branches(index, (false_fun, true_fun), ("false_fun", "true_fun"), operands,
                          "cond")


def _check_pred(pred):
    if pred is None:
        raise TypeError("cond predicate is None")
    if isinstance(pred, Sequence) or np.ndim(pred) != 0:
        what = (f"type {type(pred)}" if isinstance(pred, Sequence)
                else f"shape {np.shape(pred)}.")
        raise TypeError(f"Pred must be a scalar, got {pred} of {what}")
    try:
        dtype = dtypes.result_type(pred)
    except TypeError as err:
        raise TypeError(f"Pred type must be either boolean or number, got {pred}.") from err
    if dtype.kind == "b":
        return pred
    if dtype.kind not in "iuf":
        raise TypeError(f"Pred type must be either boolean or number, got {dtype}.")
    if isinstance(pred, (bool, int, float)):
        return pred != 0
    return lax_.ne(pred, np.zeros((), core.get_aval(pred).dtype))


def switch(index, branches: Sequence[Callable], *operands, operand=_no_operand):
    """branches[clamp(0, index, len(branches) - 1)](*operands)."""
    if not all(callable(b) for b in branches):
        raise TypeError("lax.switch: branches argument should be a sequence of callables.")
    operands = _operands(operands, operand)
    if len(np.shape(index)) != 0:
        raise TypeError(f"Branch index must be scalar, got {index} of shape "
                        f"{np.shape(index)}.")
    try:
        index_dtype = dtypes.result_type(index)
    except TypeError as err:
        raise TypeError(f"Index type must be an integer, got {index}.") from err
    if index_dtype.kind not in "iu":
        raise TypeError(f"Index type must be an integer, got {index} as {index_dtype}")
    branches = tuple(branches)
    if not branches:
        raise ValueError("Empty branch sequence")
    if len(branches) == 1:
        return branches[0](*operands)
    index = common.convert(index, np.int32)
    index = lax_.clamp(np.array(0, np.int32), index, np.array(len(branches) - 1, np.int32))
    if config.jax_disable_jit and core.concrete_value_of(index) is not None:
        return branches[int(index)](*operands)
    names = ["branch 0"] + [f"branch{i}" for i in range(1, len(branches))]
    return _bind_branches(index, branches, names, operands, "switch")


def _bind_branches(index, funs, names, operands, api: str):
    """Traces every branch on the operands' types and binds one cond."""
    flat, in_tree = tree_flatten((*operands,))
    avals = [core.get_aval(x) for x in flat]
    # JAX traces (and orders constants) true_fun first for cond, in branch order for switch
    order = [1, 0] if api == "cond" else list(range(len(funs)))
    # The same function given twice is traced once and its jaxpr shared, as JAX's
    # tracing cache does (printed once, `let jaxpr = ... in cond[branches=(jaxpr jaxpr)]`).
    memo: dict = {}
    traced_o = []
    for i in order:
        key = id(funs[i])
        if key not in memo:
            memo[key] = common.trace_jaxpr(funs[i], in_tree, avals, api)
        traced_o.append(memo[key])
    jaxprs_o, consts = common.merge_common_consts([t[0] for t in traced_o],
                                                  [t[1] for t in traced_o])
    traced, jaxprs = [None] * len(funs), [None] * len(funs)
    first: dict = {}
    for k, i in enumerate(order):
        j = first.setdefault(id(funs[i]), k)
        traced[i], jaxprs[i] = traced_o[k], jaxprs_o[j]
    ref = 1 if api == "cond" else 0  # JAX's messages compare against true_fun / branch 0
    for i, (jaxpr, _, tree) in enumerate(traced):
        if i != ref:
            common.check_branch_outputs(api, names[ref], names[i], funs[ref], funs[i],
                                        traced[ref][2], traced[ref][0].out_avals, tree,
                                        jaxpr.out_avals)
    fwds = [common.jaxpr_forwarding(j.jaxpr) for j in jaxprs]
    in_fwd = [f[0] if len(set(f)) == 1 else None for f in zip(*fwds)]
    keep = [f is None for f in in_fwd]
    pruned: dict = {}
    jaxprs = [pruned[id(j)] if id(j) in pruned else
              pruned.setdefault(id(j), common.prune_outputs(j, keep)) for j in jaxprs]
    outs = iter(state_types.bind(cond_p, index, *consts, *flat, branches=tuple(jaxprs)))
    inputs = [*consts, *flat]
    result = [next(outs) if f is None else common.as_value(inputs[f]) for f in in_fwd]
    return tree_unflatten(traced[ref][2], result)


# ----------------------------------------------------------------------------------------
# Abstract evaluation, eager evaluation, effects
# ----------------------------------------------------------------------------------------


def _cond_abstract_eval(index, *ops, branches):
    if index.shape != () or index.dtype != np.int32:
        raise TypeError(f"cond called with index of type {index.str_short()} instead of "
                        "int32[]")
    jaxpr0 = branches[0]
    if len(ops) != len(jaxpr0.in_avals):
        raise TypeError(f"cond called with {len(ops)} non-predicate operands, but branches "
                        f"take {len(jaxpr0.in_avals)} inputs")
    for i, b in enumerate(branches[1:]):
        if not all(map(core.typematch, jaxpr0.out_avals, b.out_avals)):
            raise TypeError(f"cond branches 0 and {i + 1} have mismatching output types")
    return jaxpr0.out_avals


def _cond_impl(index, *ops, branches):
    eager.check_no_tracers((index, *ops))
    i = int(np.clip(int(np.asarray(index)), 0, len(branches) - 1))
    outs = closed_call(branches[i], *ops)
    return [eager.as_array(o, a) for o, a in zip(outs, branches[0].out_avals)]


def _cond_effects(*, branches):
    return frozenset().union(*[b.effects for b in branches])


# ----------------------------------------------------------------------------------------
# JVP
# ----------------------------------------------------------------------------------------


def _jvp_branches(branches, ops_nz):
    out_nz = [any(z) for z in zip(*[ad.jvp_jaxpr(b, ops_nz, False)[1] for b in branches])]
    jvps = tuple(ad.jvp_jaxpr(b, ops_nz, out_nz)[0] for b in branches)
    return jvps, out_nz


def _cond_jvp(primals, tangents, *, branches):
    index, *ops = primals
    ops_nz = tuple(type(t) is not Zero for t in tangents[1:])
    jvps, out_nz = memoized("jvp", branches[0], (branches, ops_nz),
                            lambda: _jvp_branches(branches, ops_nz))
    outs = cond_p.bind(index, *ops, *common.prune_zeros(tangents[1:]), branches=jvps)
    n = len(out_nz)
    p_out, t_nz = outs[:n], iter(outs[n:])
    t_out = [next(t_nz) if nz else Zero(a.to_tangent_aval())
             for a, nz in zip(branches[0].out_avals, out_nz)]
    return p_out, t_out


# ----------------------------------------------------------------------------------------
# Batching
# ----------------------------------------------------------------------------------------


def _bcast_select_n(which, *cases):
    w, c = np.ndim(which), np.ndim(cases[0])
    if w != c:
        which = shapes.broadcast_in_dim(which, np.shape(cases[0]), tuple(range(w)))
    return lax_.select_n(which, *cases)


def _cond_batch(axis_data, vals, dims, *, branches):
    index, *ops = vals
    idim, *op_dims = dims
    if idim is not None:
        return _batched_index(axis_data, vals, dims, branches)
    ops_bat = [d is not None for d in op_dims]
    ops = [batching.moveaxis(x, d, 0) if d is not None else x for x, d in zip(ops, op_dims)]
    out_bat = [any(b) for b in zip(*[common.batched_outputs(j, axis_data, ops_bat)
                                      for j in branches])]
    batched = tuple(common.batch_jaxpr(j, axis_data, ops_bat, out_bat)[0] for j in branches)
    outs = cond_p.bind(index, *ops, branches=batched)
    return outs, [0 if b else None for b in out_bat]


def _stop_gradient(x):
    """JAX's lax.stop_gradient on one array: bound for every non-extended dtype."""
    if not isinstance(core.get_aval(x).dtype, np.dtype):
        return x
    return lax_.stop_gradient_p.bind(x)


def _batched_index(axis_data, vals, dims, branches):
    """A batched index: every branch runs on every lane and a select picks the results."""
    size = axis_data.size
    index, *ops = [batching.bdim_at_front(x, d, size) for x, d in zip(vals, dims)]
    n_in = len(branches[0].in_avals)
    batched = [common.batch_jaxpr(j, axis_data, [True] * n_in, True)[0] for j in branches]
    branch_outs = []
    for i, jaxpr in enumerate(batched):
        # select the inputs so reverse-mode sees no gradient through unselected lanes
        pred = lax_.eq(index, np.array(i, np.int32))
        ops_ = [_bcast_select_n(pred, _stop_gradient(x), x) for x in ops]
        branch_outs.append(closed_call(jaxpr, *ops_))
    outs = [_bcast_select_n(index, *cases) for cases in zip(*branch_outs)]
    return outs, [0] * len(outs)


# ----------------------------------------------------------------------------------------
# Partial evaluation
# ----------------------------------------------------------------------------------------


def _merge_branch_residuals(branch_res_avals):
    """Residual slots shared across branches by type: (all slot avals, per branch the slot
    of each of its residuals)."""
    def tag(avals):
        counts: dict = {}
        out = []
        for a in avals:
            k = counts.get(a, 0)
            counts[a] = k + 1
            out.append((a, k))
        return out
    tagged = [tag(avals) for avals in branch_res_avals]
    slots = list(dict.fromkeys(itertools.chain.from_iterable(tagged)))
    index = {t: i for i, t in enumerate(slots)}
    return [a for a, _ in slots], [[index[t] for t in ts] for ts in tagged]


def _join_outputs(jaxprs, all_res, res_slots, num_outs):
    """Each known branch returns every residual slot (empties where it has none)."""
    out = []
    for jaxpr, slots in zip(jaxprs, res_slots):
        def f_aug(*args, jaxpr=jaxpr, slots=slots):
            outs, res = split_list(closed_call(jaxpr, *args), [num_outs])
            aug = [common.empty_like_aval(a) for a in all_res]
            for s, r in zip(slots, res):
                aug[s] = r
            return [*outs, *aug]
        out.append(common.trace_flat(f_aug, jaxpr.in_avals, "cond"))
    return tuple(out)


def _join_inputs(jaxprs, all_res, res_slots):
    """Each unknown branch takes every residual slot (ignoring those it does not read)."""
    out = []
    for jaxpr, slots in zip(jaxprs, res_slots):
        binders = [Var(a) for a in all_res]
        n = len(slots)
        for s, v in zip(slots, jaxpr.jaxpr.invars[:n]):
            binders[s] = v
        new = jaxpr.jaxpr.replace(invars=[*binders, *jaxpr.jaxpr.invars[n:]])
        out.append(ClosedJaxpr(new, jaxpr.consts))
    return tuple(out)


def _dced(part):
    """Both halves of a split branch without dead code (JAX's linearization DCEs them,
    nested conds' unused residual fillers included)."""
    known, unknown, out_uk, res_avals = part
    return (common.dce_closed(known, [True] * len(known.out_avals)),
            common.dce_closed(unknown, [True] * len(unknown.out_avals)), out_uk, res_avals)


def _split_branches(branches, ops_uk):
    out_uk = [any(u) for u in zip(*[pe.partial_eval_jaxpr_nounits(b, ops_uk, False)[2]
                                     for b in branches])]
    parts = [_dced(pe.partial_eval_jaxpr_nounits(b, ops_uk, out_uk)) for b in branches]
    all_res, slots = _merge_branch_residuals([p[3] for p in parts])
    num_known = len(out_uk) - sum(out_uk)
    known = _join_outputs([p[0] for p in parts], all_res, slots, num_known)
    unknown = _join_inputs([p[1] for p in parts], all_res, slots)
    return known, unknown, out_uk, len(all_res)


def _cond_partial_eval(trace: pe.JaxprTrace, index, *ops, branches):
    if trace.is_unknown(index):
        return trace.default_process_primitive(cond_p, [index, *ops], dict(branches=branches))
    ops_uk = tuple(trace.is_unknown(x) for x in ops)
    known, unknown, out_uk, num_res = memoized(
        "pe", branches[0], (branches, ops_uk), lambda: _split_branches(branches, ops_uk))
    known_ops = [x for x, uk in zip(ops, ops_uk) if not uk]
    with core.set_current_trace(trace.parent_trace):
        outs = cond_p.bind(index, *known_ops, branches=known)
    known_outs, res = split_list(outs, [len(outs) - num_res])
    atoms = [trace.to_atom(x) for x in [index, *res, *[x for x, uk in zip(ops, ops_uk) if uk]]]
    unknown_outs = trace.emit(cond_p, atoms, unknown[0].out_avals, dict(branches=unknown))
    k_it, u_it = iter(known_outs), iter(unknown_outs)
    return [next(u_it) if uk else next(k_it) for uk in out_uk]


# ----------------------------------------------------------------------------------------
# Transpose
# ----------------------------------------------------------------------------------------


def _transpose_branches(branches, linear, ct_zero, lin_avals):
    if any(ct_zero):
        used = [not z for z in ct_zero]
        branches = [common.dce_closed(b, used) for b in branches]
    branches = [common.retype_invars(b, lin_avals) for b in branches]
    firsts = [common.transpose_jaxpr(b, linear)[1] for b in branches]
    keep = [any(k) for k in zip(*firsts)]
    return tuple(common.transpose_jaxpr(b, linear, keep)[0] for b in branches), keep


def _cond_transpose(cts, index, *args, branches):
    if ad.is_undefined_primal(index):
        raise AssertionError("the index of a cond is never linear")
    linear = tuple(ad.is_undefined_primal(a) for a in args)
    ct_zero = tuple(type(c) is Zero for c in cts)
    if all(ct_zero):
        return [None] + [Zero(a.aval) if lin else None for a, lin in zip(args, linear)]
    lin_avals = tuple(a.aval if lin else None for a, lin in zip(args, linear))
    trans, keep = memoized("transpose", branches[0], (branches, linear, ct_zero, lin_avals),
                           lambda: _transpose_branches(branches, linear, ct_zero, lin_avals))
    nonlin = [a for a, lin in zip(args, linear) if not lin]
    outs = iter(cond_p.bind(index, *nonlin, *[c for c in cts if type(c) is not Zero],
                            branches=trans))
    lin_avals = [a.aval for a in args if ad.is_undefined_primal(a)]
    lin_cts = iter([next(outs) if k else Zero(a) for a, k in zip(lin_avals, keep)])
    return [None] + [next(lin_cts) if lin else None for lin in linear]


# ----------------------------------------------------------------------------------------
# DCE and lowering
# ----------------------------------------------------------------------------------------


def _cond_dce(used_outputs, eqn):
    branches = eqn.params["branches"]
    if not any(used_outputs) and not eqn.effects:
        return [False] * len(eqn.invars), None
    used_in = [False] * (len(eqn.invars) - 1)
    for b in branches:
        _, u = pe.dce_jaxpr(b.jaxpr, used_outputs, instantiate=False)
        used_in = [x or y for x, y in zip(used_in, u)]
    new = tuple(common.dce_closed(b, used_outputs, used_in) for b in branches)
    new_eqn = eqn.replace(
        invars=[eqn.invars[0]] + [v for v, u in zip(eqn.invars[1:], used_in) if u],
        outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
        params=dict(eqn.params, branches=new))
    return [True, *used_in], new_eqn


def _cond_lower(ctx, index, *ops, branches):
    fn = ctx.fn
    n = len(branches)
    i32 = core.ShapedArray((), np.int32)
    # stablehlo.case runs the last branch for any out-of-range index: clamp to [0, n)
    index = fn.op1("stablehlo.clamp", [fn.const(0, i32), index, fn.const(n - 1, i32)], i32)
    tokens = ctx.tokens if (ctx.tokens is not None and _has_ordered(branches)) else None
    out_avals = list(ctx.avals_out)
    if tokens is not None:
        out_avals = [core.abstract_token, *out_avals]

    def region(i, branch):
        def body(b, _args):
            ts = None if tokens is None else lowering.TokenState(tokens.token)
            outs = lowering.lower_jaxpr_body(b, branch.jaxpr, branch.consts, ops, ts,
                                             scope_name=f"cond/branch_{i}_fun")  # as JAX
            return outs if ts is None else [ts.token, *outs]
        return fn.region([], body)
    outs = fn.op("stablehlo.case", [index], out_avals,
                 regions=[region(i, b) for i, b in enumerate(branches)])
    if tokens is not None:
        tokens.token, outs = outs[0], outs[1:]
    return outs


def _has_ordered(jaxprs) -> bool:
    return any(getattr(e, "ordered", False) for j in jaxprs for e in j.effects)


cond_p = def_primitive(
    "cond", abstract_eval=_cond_abstract_eval, impl=None, eager_impl=_cond_impl,
    jvp=_cond_jvp, transpose=_cond_transpose, batch=_cond_batch, lower=_cond_lower,
    multiple_results=True)
cond_p.is_higher_order = True
pe.partial_eval_rules[cond_p] = _cond_partial_eval
pe.dce_rules[cond_p] = _cond_dce
pe.effects_rules[cond_p] = _cond_effects
