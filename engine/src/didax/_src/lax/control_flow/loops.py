"""`lax.while_loop` and the `while` primitive; `fori_loop` (a scan when the trip count is
static, so it can be reverse-differentiated, else a while loop); `lax.map` and
`associative_scan`.

`while` (printed `while[body_jaxpr={...} body_nconsts=.. cond_jaxpr={...}
cond_nconsts=..]`) takes [cond consts, body consts, initial carry]. Rules: eager
evaluation (interpreted for the first steps, then one cached XLA executable); JVP (fixpoint
on nonzero carry tangents); batching (fixpoint on batched carries; a batched predicate
batches the whole carry and keeps iterating while any lane is live, freezing finished lanes
with select); partial evaluation (the known carries run in a known loop, the whole loop is
staged for the unknown ones); transpose raises JAX's error (reverse mode needs scan); DCE
(fixpoint on carries needed by the outputs or the predicate); lowering to
`stablehlo.while`.

May import core, config, dtypes, the interpreters, tree_util, array, lax and the
control-flow helpers.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from didax._src import core, dtypes
from didax._src.config import config
from didax._src.core import ClosedJaxpr
from didax._src.interpreters import ad, batching
from didax._src.interpreters import partial_eval as pe
from didax._src.interpreters.ad import Zero
from didax._src.lax import lax as lax_
from didax._src.lax import shapes
from didax._src.lax._define import def_primitive
from didax._src.lax.control_flow import common, eager, loop_lowering
from didax._src.lax.control_flow.common import closed_call, memoized
from didax._src.lax.control_flow.scan import scan
from didax._src.state import types as state_types
from didax._src.tree_util import tree_flatten, tree_map, tree_unflatten, treedef_tuple
from didax._src.util import merge_lists, partition_list, split_list

# ----------------------------------------------------------------------------------------
# while_loop
# ----------------------------------------------------------------------------------------


def while_loop(cond_fun: Callable, body_fun: Callable, init_val):
    """val = init_val; while cond_fun(val): val = body_fun(val); return val."""
    origin = common.take_loop_origin()
    if not (callable(body_fun) and callable(cond_fun)):
        raise TypeError("lax.while_loop: body_fun and cond_fun arguments should be callable.")
    if config.jax_disable_jit:
        try:
            return _while_python(cond_fun, body_fun, init_val)
        except core.ConcretizationTypeError:
            pass
    init_flat, init_tree = tree_flatten(init_val)
    avals = [core.get_aval(x) for x in init_flat]
    in_tree = treedef_tuple([init_tree])
    cond_j, cond_consts, body_j, body_consts, out_tree = _trace_while(
        cond_fun, body_fun, in_tree, avals)
    if out_tree.num_leaves != len(avals):
        common.check_carry_type("while_loop body", body_fun, init_tree, avals, out_tree,
                                body_j.out_avals)
    promoted = [common.promote_weak_input(x, a, b)
                for x, a, b in zip(init_flat, avals, body_j.out_avals)]
    if any(c for _, c in promoted):
        init_flat = [x for x, _ in promoted]
        avals = [core.get_aval(x) for x in init_flat]
        cond_j, cond_consts, body_j, body_consts, out_tree = _trace_while(
            cond_fun, body_fun, in_tree, avals)
    common.check_carry_type("while_loop body", body_fun, init_tree, avals, out_tree,
                            body_j.out_avals)
    outs = _bind_while(cond_j, cond_consts, body_j, body_consts, init_flat, origin)
    return tree_unflatten(init_tree, outs)


def _while_python(cond_fun, body_fun, init_val):
    val = tree_map(common.as_value, init_val)
    while cond_fun(val):
        val = tree_map(common.as_value, body_fun(val))
    return val


def _trace_while(cond_fun, body_fun, in_tree, avals):
    cond_j, cond_consts, cond_tree = common.trace_jaxpr(cond_fun, in_tree, avals, "while_cond")
    body_j, body_consts, body_tree = common.trace_jaxpr(body_fun, in_tree, avals,
                                                        "while_body")
    if cond_tree.num_nodes != 1 or len(cond_j.out_avals) != 1:
        raise TypeError(f"cond_fun must return a boolean scalar, but got pytree {cond_tree}.")
    pred = cond_j.out_avals[0]
    if pred.shape != () or pred.dtype != np.bool_:
        raise TypeError("cond_fun must return a boolean scalar, but got output type(s) "
                        f"[{pred!r}].")
    return cond_j, cond_consts, body_j, body_consts, body_tree


def _bind_while(cond_j, cond_consts, body_j, body_consts, init, origin=None):
    """Binds while; carries the body merely forwards and the predicate never reads become
    body constants (so a batched predicate does not batch them)."""
    nb, nc = len(body_consts), len(cond_consts)
    fwd = common.jaxpr_forwarding(body_j.jaxpr)
    no_fwd = [nb + i != f for i, f in enumerate(fwd)]
    cond_dce, keep = pe.dce_jaxpr(cond_j.jaxpr, [True], [True] * nc + no_fwd)
    move = [not k for k in keep[nc:]]
    new_consts: list = []
    if any(move):
        cond_j = ClosedJaxpr(cond_dce, cond_j.consts)
        body_j = common.prune_outputs(body_j, [not m for m in move])
        body_j = common.move_binders_to_front(body_j, [False] * nb + move)
        init, new_consts = partition_list(move, init)
        body_consts = [*new_consts, *body_consts]
    common.note_loop_origin(body_j, origin)
    outs = state_types.bind(while_p, *cond_consts, *body_consts, *init, cond_nconsts=nc,
                            cond_jaxpr=cond_j, body_nconsts=len(body_consts),
                            body_jaxpr=body_j)
    return merge_lists(move, outs, new_consts) if any(move) else outs


# ----------------------------------------------------------------------------------------
# fori_loop
# ----------------------------------------------------------------------------------------


def _bounds_dtype(lower, upper):
    lo_dt, up_dt = core.get_aval(lower).dtype, core.get_aval(upper).dtype
    if lo_dt == up_dt:
        return lo_dt
    if (np.issubdtype(lo_dt, np.signedinteger) and np.issubdtype(up_dt, np.signedinteger)):
        lo_weak, up_weak = dtypes.is_weakly_typed(lower), dtypes.is_weakly_typed(upper)
        if lo_weak and not up_weak:
            return up_dt
        if up_weak and not lo_weak:
            return lo_dt
    raise TypeError("lower and upper arguments to fori_loop must have equal types, got "
                    f"{lo_dt.name} and {up_dt.name}")


def _static_int(x):
    c = core.concrete_value_of(x)
    if c is None:
        return None
    try:
        return int(c)
    except (TypeError, ValueError):
        return None


def fori_loop(lower, upper, body_fun: Callable, init_val, *, unroll=None):
    """for i in range(lower, upper): val = body_fun(i, val); as a scan when the bounds are
    concrete (reverse-differentiable), else as a while loop."""
    if not callable(body_fun):
        raise TypeError("lax.fori_loop: body_fun argument should be callable.")
    dtype = _bounds_dtype(lower, upper)
    lo, up = _static_int(lower), _static_int(upper)
    if lo is not None and up is not None:
        length = max(up - lo, 0)
        if config.jax_disable_jit and length == 0:
            return init_val

        def scanned(carry, _):
            i, x = carry
            return (i + 1, body_fun(i, x)), None
        common.mark_next_loop("fori_loop")
        (_, result), _ = scan(scanned, (lo, init_val), None, length=length,
                              unroll=False if unroll is None else unroll)
        return result
    if unroll is not None and unroll is not False and unroll != 1:
        raise ValueError("Can only use `unroll` in `fori_loop` if the loop bounds are "
                         "statically known.")
    if core.get_aval(lower).dtype != dtype:
        lower = common.convert(lower, dtype)
    if core.get_aval(upper).dtype != dtype:
        upper = common.convert(upper, dtype)

    def cond(carry):
        return lax_.lt(carry[0], carry[1])

    def body(carry):
        i, hi, x = carry
        return lax_.add(i, np.array(1, core.get_aval(i).dtype)), hi, body_fun(i, x)
    common.mark_next_loop("fori_loop")
    return while_loop(cond, body, (lower, upper, init_val))[2]


# ----------------------------------------------------------------------------------------
# The primitive: abstract evaluation, eager evaluation, effects
# ----------------------------------------------------------------------------------------


def _while_abstract_eval(*avals, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    cc, bc, carry = split_list(avals, [cond_nconsts, body_nconsts])
    if len(cond_jaxpr.in_avals) != len(cc) + len(carry):
        raise TypeError(f"while_loop cond takes {len(cond_jaxpr.in_avals)} inputs, got "
                        f"{len(cc) + len(carry)}")
    if len(body_jaxpr.in_avals) != len(bc) + len(carry):
        raise TypeError(f"while_loop body takes {len(body_jaxpr.in_avals)} inputs, got "
                        f"{len(bc) + len(carry)}")
    if not all(core.typematch(a, b) for a, b in zip(carry, body_jaxpr.out_avals)):
        raise TypeError("while_loop carry input and body output types differ: "
                        f"{[a.str_short() for a in carry]} vs "
                        f"{[a.str_short() for a in body_jaxpr.out_avals]}")
    return body_jaxpr.out_avals


def _while_effects(*, cond_jaxpr, body_jaxpr, **params):
    return cond_jaxpr.effects | body_jaxpr.effects


def _while_impl(*args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    eager.check_no_tracers(args)
    params = dict(cond_jaxpr=cond_jaxpr, body_jaxpr=body_jaxpr, cond_nconsts=cond_nconsts,
                  body_nconsts=body_nconsts)
    in_avals = [core.get_aval(a) for a in args]
    out_avals = _while_abstract_eval(*in_avals, **params)
    cc, bc, carry = split_list(args, [cond_nconsts, body_nconsts])
    can_compile = not eager.interpretable_only([cond_jaxpr, body_jaxpr], in_avals)
    per_step = len(cond_jaxpr.eqns) + len(body_jaxpr.eqns) + 1
    batched = bool(cond_jaxpr.out_avals[0].shape)
    steps = 0
    while True:
        if can_compile and steps * per_step > eager.INTERPRET_BUDGET:
            outs = eager.run_compiled(while_p, body_jaxpr, [*cc, *bc, *carry], params,
                                      out_avals)
            if outs is not None:
                return outs
            can_compile = False
        pred = closed_call(cond_jaxpr, *cc, *carry)[0]
        if not (eager.any_true(pred) if batched else bool(np.asarray(pred))):
            break
        new = closed_call(body_jaxpr, *bc, *carry)
        carry = [eager.select_lanes(pred, n, o) for n, o in zip(new, carry)] \
            if batched else new
        steps += 1
    return [eager.as_array(c, a) for c, a in zip(carry, out_avals)]


# ----------------------------------------------------------------------------------------
# JVP
# ----------------------------------------------------------------------------------------


def _jvp_fixpoint(body_jaxpr, bconst_nz, init_nz):
    carry_nz = list(init_nz)
    for _ in range(1 + len(carry_nz)):
        jvp, out_nz = ad.jvp_jaxpr(body_jaxpr, [*bconst_nz, *carry_nz], instantiate=carry_nz)
        if out_nz == carry_nz:
            return jvp, carry_nz
        carry_nz = common.or_lists(carry_nz, out_nz)
    raise AssertionError("while JVP: fixpoint not reached")


def _while_jvp(primals, tangents, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    nz = [type(t) is not Zero for t in tangents]
    _, bconst_nz, init_nz = split_list(nz, [cond_nconsts, body_nconsts])
    jvp, carry_nz = memoized("jvp", body_jaxpr, tuple(nz),
                             lambda: _jvp_fixpoint(body_jaxpr, bconst_nz, init_nz))
    cc, bc, init = split_list(primals, [cond_nconsts, body_nconsts])
    _, bc_t, init_t = split_list(tangents, [cond_nconsts, body_nconsts])
    bc_dot = common.prune_zeros(bc_t)
    init_dot = [ad.instantiate_zeros(t) for t, n in zip(init_t, carry_nz) if n]
    num_carry = len(init)
    jvp = common.rearrange_binders(jvp, [body_nconsts, num_carry],
                                   [len(bc_dot), len(init_dot)], [num_carry], [len(init_dot)])
    cond_aug = common.with_extra_binders(cond_jaxpr, [core.get_aval(t) for t in init_dot])
    outs = while_p.bind(*cc, *bc, *bc_dot, *init, *init_dot, cond_nconsts=cond_nconsts,
                        cond_jaxpr=cond_aug, body_nconsts=len(bc) + len(bc_dot),
                        body_jaxpr=jvp)
    carry, carry_dot = split_list(outs, [num_carry])
    it = iter(carry_dot)
    return carry, [next(it) if n else Zero(core.get_aval(p).to_tangent_aval())
                   for p, n in zip(carry, carry_nz)]


# ----------------------------------------------------------------------------------------
# Batching
# ----------------------------------------------------------------------------------------


def _carry_batched(body_jaxpr, axis_data, bconst_bat, init_bat):
    carry_bat = list(init_bat)
    for _ in range(1 + len(carry_bat)):
        out = common.batch_jaxpr(body_jaxpr, axis_data, [*bconst_bat, *carry_bat],
                                 carry_bat)[1]
        if out == carry_bat:
            return carry_bat
        carry_bat = common.or_lists(carry_bat, out)
    raise AssertionError("while batching: fixpoint not reached")


def _batch_while_jaxprs(cond_jaxpr, body_jaxpr, axis_data, dims, cond_nconsts,
                        body_nconsts):
    bat = [d is not None for d in dims]
    cc_b, bc_b, init_b = split_list(bat, [cond_nconsts, body_nconsts])
    cc_d, bc_d, _ = split_list(dims, [cond_nconsts, body_nconsts])
    carry_b = _carry_batched(body_jaxpr, axis_data, bc_b, init_b)
    pred_b = common.batched_outputs(cond_jaxpr, axis_data, [*cc_b, *carry_b])[0]
    if pred_b:
        carry_dims = [0] * len(carry_b)
        pred_dims = [0]
    else:
        rank = len(cond_jaxpr.out_avals[0].shape)
        carry_dims = [rank if b else None for b in carry_b]
        pred_dims = [None]
    body = common.batch_jaxpr_axes(body_jaxpr, axis_data, [*bc_d, *carry_dims], carry_dims)
    cond = common.batch_jaxpr_axes(cond_jaxpr, axis_data, [*cc_d, *carry_dims], pred_dims)
    return cond, body, carry_dims


def _while_batch(axis_data, vals, dims, *, cond_jaxpr, body_jaxpr, cond_nconsts,
                 body_nconsts):
    if any(getattr(e, "ordered", False) for e in cond_jaxpr.effects | body_jaxpr.effects):
        raise ValueError("Ordered IO effects not supported in vmap.")
    cond, body, carry_dims = memoized(
        ("vmap", axis_data.size, axis_data.name), body_jaxpr,
        (cond_jaxpr, tuple(dims), cond_nconsts, body_nconsts),
        lambda: _batch_while_jaxprs(cond_jaxpr, body_jaxpr, axis_data, dims, cond_nconsts,
                                    body_nconsts))
    cc, bc, init = split_list(vals, [cond_nconsts, body_nconsts])
    _, _, init_d = split_list(dims, [cond_nconsts, body_nconsts])
    new_init = [batching.matchaxis(axis_data.size, d, nd, x)
                for x, d, nd in zip(init, init_d, carry_dims)]
    outs = while_p.bind(*cc, *bc, *new_init, cond_nconsts=cond_nconsts, cond_jaxpr=cond,
                        body_nconsts=body_nconsts, body_jaxpr=body)
    return outs, carry_dims


# ----------------------------------------------------------------------------------------
# Partial evaluation, transpose, DCE
# ----------------------------------------------------------------------------------------


def _split_while(cond_jaxpr, body_jaxpr, uks, cond_nconsts, body_nconsts):
    cc_uk, bc_uk, init_uk = split_list(uks, [cond_nconsts, body_nconsts])
    carry_uk = list(init_uk)
    for _ in range(1 + len(carry_uk)):
        body_known, _, out_uk, _ = pe.partial_eval_jaxpr_nounits(
            body_jaxpr, [*bc_uk, *carry_uk], instantiate=carry_uk)
        if out_uk == carry_uk:
            break
        carry_uk = common.or_lists(carry_uk, out_uk)
    cond_known, _, cond_uk, _ = pe.partial_eval_jaxpr_nounits(
        cond_jaxpr, [*cc_uk, *carry_uk], instantiate=False)
    n_known = len(carry_uk) - sum(carry_uk)
    body_known = ClosedJaxpr(body_known.jaxpr.replace(
        outvars=body_known.jaxpr.outvars[:n_known]), body_known.consts)
    cond_known = ClosedJaxpr(cond_known.jaxpr.replace(outvars=cond_known.jaxpr.outvars[:1]),
                             cond_known.consts)
    return cond_known, body_known, carry_uk, cond_uk[0]


def _while_partial_eval(trace: pe.JaxprTrace, *args, cond_jaxpr, body_jaxpr, cond_nconsts,
                        body_nconsts):
    """The known carries come from a loop over the known part; the unknown ones from the
    whole loop, staged (so reverse mode finds a while in the linear program and fails)."""
    params = dict(cond_jaxpr=cond_jaxpr, body_jaxpr=body_jaxpr, cond_nconsts=cond_nconsts,
                  body_nconsts=body_nconsts)
    uks = tuple(trace.is_unknown(x) for x in args)
    cond_known, body_known, carry_uk, cond_uk = memoized(
        "pe", body_jaxpr, (cond_jaxpr, uks, cond_nconsts, body_nconsts),
        lambda: _split_while(cond_jaxpr, body_jaxpr, uks, cond_nconsts, body_nconsts))
    if cond_uk or all(uks) or not any(uks):
        return trace.default_process_primitive(while_p, list(args), params)
    cc_uk, bc_uk, _ = split_list(uks, [cond_nconsts, body_nconsts])
    all_uk = [*cc_uk, *bc_uk, *carry_uk]
    known_ins = [x for x, uk in zip(args, all_uk) if not uk]
    with core.set_current_trace(trace.parent_trace):
        known_outs = while_p.bind(*known_ins, cond_nconsts=len(cc_uk) - sum(cc_uk),
                                  cond_jaxpr=cond_known, body_nconsts=len(bc_uk) - sum(bc_uk),
                                  body_jaxpr=body_known)
    staged = trace.default_process_primitive(while_p, list(args), params)
    k_it = iter(known_outs)
    return [s if uk else next(k_it) for s, uk in zip(staged, carry_uk)]


def _while_transpose(cts, *args, **params):
    raise ValueError("Reverse-mode differentiation does not work for lax.while_loop or "
                     "lax.fori_loop with dynamic start/stop values. Try using lax.scan, or "
                     "using fori_loop with static start/stop.")


def _while_dce(used_outputs, eqn):
    p = eqn.params
    cond_j, body_j = p["cond_jaxpr"], p["body_jaxpr"]
    cn, bn = p["cond_nconsts"], p["body_nconsts"]
    effects = cond_j.effects or body_j.effects
    if not any(used_outputs) and not effects:
        return [False] * len(eqn.invars), None
    _, cond_in = pe.dce_jaxpr(cond_j.jaxpr, [True])
    used = [u or c for u, c in zip(used_outputs, cond_in[cn:])]
    for _ in range(1 + len(used)):
        _, body_in = pe.dce_jaxpr(body_j.jaxpr, used, instantiate=[False] * bn + used)
        if body_in[bn:] == used:
            break
        used = common.or_lists(used, body_in[bn:])
    if all(used):
        return [True] * len(eqn.invars), eqn
    new_cond, cc_used = pe.dce_jaxpr(cond_j.jaxpr, [True], instantiate=[False] * cn + used)
    new_body, bc_used = pe.dce_jaxpr(body_j.jaxpr, used, instantiate=[False] * bn + used)
    used_in = [*cc_used[:cn], *bc_used[:bn], *used]
    params = dict(p, cond_jaxpr=_reclose(cond_j, new_cond), body_jaxpr=_reclose(body_j, new_body),
                  cond_nconsts=sum(cc_used[:cn]), body_nconsts=sum(bc_used[:bn]))
    new_eqn = eqn.replace(invars=[v for v, u in zip(eqn.invars, used_in) if u],
                          outvars=[v for v, u in zip(eqn.outvars, used) if u], params=params)
    return used_in, new_eqn


def _reclose(closed: ClosedJaxpr, jaxpr) -> ClosedJaxpr:
    keep = set(jaxpr.constvars)
    return ClosedJaxpr(jaxpr, [c for v, c in zip(closed.jaxpr.constvars, closed.consts)
                               if v in keep])


while_p = def_primitive(
    "while", abstract_eval=_while_abstract_eval, impl=None, eager_impl=_while_impl,
    jvp=_while_jvp, transpose=_while_transpose, batch=_while_batch,
    lower=loop_lowering.lower_while, multiple_results=True)
while_p.is_higher_order = True
pe.partial_eval_rules[while_p] = _while_partial_eval
pe.dce_rules[while_p] = _while_dce
pe.effects_rules[while_p] = _while_effects

# ----------------------------------------------------------------------------------------
# map and associative_scan
# ----------------------------------------------------------------------------------------


def _vmap_leading(f, x):
    """f mapped over the leading axis of every leaf of x (outputs batched at axis 0)."""
    leaves, tree = tree_flatten(x)
    size = leaves[0].shape[0]
    box = {}

    def flat(*xs):
        out, box["tree"] = tree_flatten(f(tree_unflatten(tree, list(xs))))
        return out
    outs, dims = batching.batch_flat(flat, batching.AxisData(None, size), leaves,
                                     [0] * len(leaves))
    return tree_unflatten(box["tree"], [batching.matchaxis(size, d, 0, o)
                                        for o, d in zip(outs, dims)])


def _split_batches(xs, batch_size: int):
    leaves, tree = tree_flatten(xs)
    if not leaves:
        return xs, None
    n = leaves[0].shape[0]
    num, rem = (0, n) if batch_size == 0 else divmod(n, batch_size)
    cut = num * batch_size
    def rows(x, lo, hi):  # x[lo:hi], as NumPy-style indexing slices it (no strides)
        return shapes.slice(x, (lo,) + (0,) * (x.ndim - 1), (hi, *x.shape[1:]))
    main = None if num == 0 else tree_unflatten(tree, [
        shapes.reshape(rows(x, 0, cut), (num, batch_size, *x.shape[1:])) for x in leaves])
    rest = None if rem == 0 else tree_unflatten(tree, [rows(x, cut, n) for x in leaves])
    return main, rest


def map(f: Callable, xs, *, batch_size: int | None = None):  # noqa: A001
    """f applied to each slice of xs along the leading axis, results stacked (one scan; with
    batch_size, a scan over vmapped batches plus a vmapped remainder)."""
    if batch_size is None:
        return scan(lambda _, x: ((), f(x)), (), xs)[1]
    main, rest = _split_batches(xs, batch_size)
    ys = None if main is None else scan(lambda _, x: ((), _vmap_leading(f, x)), (), main)[1]
    rest_ys = None if rest is None else _vmap_leading(f, rest)
    if ys is None:
        return rest_ys

    def flatten(y):
        return shapes.reshape(y, (y.shape[0] * y.shape[1], *y.shape[2:]))
    if rest_ys is None:
        return tree_map(flatten, ys)
    return tree_map(lambda a, b: shapes.concatenate([flatten(a), b], 0), ys, rest_ys)


def _interleave(a, b, axis: int):
    """Elements of a and b alternating along axis (a first)."""
    na, nb = a.shape[axis], b.shape[axis]
    a_cfg = [(0, 0, 0)] * a.ndim
    b_cfg = [(0, 0, 0)] * b.ndim
    a_cfg[axis] = (0, 1 if na == nb else 0, 1)
    b_cfg[axis] = (1, 0 if na == nb else 1, 1)
    zero_a = np.zeros((), a.dtype)
    zero_b = np.zeros((), b.dtype)
    op = lax_.bitwise_or if a.dtype == np.bool_ else lax_.add
    return op(shapes.pad(a, zero_a, a_cfg), shapes.pad(b, zero_b, b_cfg))


def _slice_axis(e, start, stop, axis: int, stride: int = 1):
    """e[start:stop:stride] along axis, strides spelled out as JAX's slice_in_dim does."""
    n = e.shape[axis]
    start = start + n if start < 0 else start
    stop = n if stop is None else stop + n if stop < 0 else stop
    lo, hi, st = [0] * e.ndim, list(e.shape), [1] * e.ndim
    lo[axis], hi[axis], st[axis] = start, stop, stride
    return shapes.slice_p.bind(e, start_indices=tuple(lo), limit_indices=tuple(hi),
                               strides=tuple(st))


def _prefix_scan(es, combine, axis: int):
    """Odd prefixes by recursion on pairwise-combined elements, even ones from them."""
    m = es[0].shape[axis]
    if m < 2:
        return es
    odd = _prefix_scan(combine([_slice_axis(e, 0, -1, axis, 2) for e in es],
                               [_slice_axis(e, 1, None, axis, 2) for e in es]), combine, axis)
    firsts = [_slice_axis(e, 0, -1, axis) for e in odd] if m % 2 == 0 else odd
    even = combine(firsts, [_slice_axis(e, 2, None, axis, 2) for e in es])
    even = [shapes.concatenate([_slice_axis(e, 0, 1, axis), r], axis)
            for e, r in zip(es, even)]
    return [_interleave(a, b, axis) for a, b in zip(even, odd)]


def associative_scan(fn: Callable, elems, reverse: bool = False, axis: int = 0):
    """All prefix combinations of elems along axis under the associative fn (a parallel,
    logarithmic-depth scan)."""
    if not callable(fn):
        raise TypeError("lax.associative_scan: fn argument should be callable.")
    flat, tree = tree_flatten(elems)
    if reverse:
        flat = [shapes.rev(e, (axis,)) for e in flat]
    axis = shapes.canonicalize_axis(axis, flat[0].ndim)
    n = int(flat[0].shape[axis])
    if not all(int(e.shape[axis]) == n for e in flat[1:]):
        raise ValueError("Array inputs to associative_scan must have the same first "
                         f"dimension. (saw: {[e.shape for e in flat]})")

    def combine(a, b):
        out, _ = tree_flatten(fn(tree_unflatten(tree, a), tree_unflatten(tree, b)))
        return out
    out = _prefix_scan(flat, combine, axis)
    if reverse:
        out = [shapes.rev(e, (axis,)) for e in out]
    return tree_unflatten(tree, out)
