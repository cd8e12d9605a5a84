"""`lax.scan` and the `scan` primitive.

`scan` (printed `scan[jaxpr={...} length=.. num_carry=.. num_consts=.. reverse=..
unroll=..]`) takes [consts, initial carry, xs] and returns [final carry, stacked ys]; its
jaxpr maps [consts, carry, x] to [carry, y]. Rules: eager evaluation (interpreted for
short or effectful loops, otherwise one XLA executable cached by program structure); JVP
(a fixpoint decides which carries have nonzero tangents); partial evaluation (a fixpoint
decides which carries are unknown; residuals that are known consts/xs are forwarded,
loop-invariant ones are hoisted out of the known loop); transpose (a reverse scan that
accumulates the constants' cotangents in its carry); batching (fixpoint on batched carries;
xs and ys batched at axis 1); DCE (fixpoint on used carries); lowering to
`stablehlo.while` (loop_lowering.py).

May import core, config, the interpreters, tree_util, array, lax and the control-flow
helpers.
"""

from __future__ import annotations

import operator
from collections.abc import Callable

import numpy as np

from didax._src import core
from didax._src.config import config
from didax._src.core import ClosedJaxpr, ShapedArray
from didax._src.interpreters import ad, batching
from didax._src.interpreters import partial_eval as pe
from didax._src.interpreters.ad import Zero
from didax._src.lax import shapes
from didax._src.lax._define import def_primitive
from didax._src.lax.control_flow import common, eager, loop_lowering
from didax._src.lax.control_flow.common import closed_call, memoized
from didax._src.state import types as state_types
from didax._src.tree_util import tree_flatten, tree_map, tree_unflatten, treedef_tuple
from didax._src.util import merge_lists, partition_list, split_list

# ----------------------------------------------------------------------------------------
# The API
# ----------------------------------------------------------------------------------------


def scan(f: Callable, init, xs=None, length: int | None = None, reverse: bool = False,
         unroll: int | bool = 1, _split_transpose: bool = False):
    """Scans f: (carry, x) -> (carry, y) over the leading axis of xs; returns
    (final carry, stacked ys)."""
    origin = common.take_loop_origin()
    if not callable(f):
        raise TypeError("lax.scan: f argument should be a callable.")
    init_flat, init_tree = tree_flatten(init)
    xs_flat, xs_tree = tree_flatten(xs)
    length = _infer_length(xs_flat, length)
    if config.jax_disable_jit:
        return _scan_python(f, init, xs_flat, xs_tree, length, reverse)
    init_avals = [core.get_aval(x) for x in init_flat]
    x_avals = [_slice_aval(core.get_aval(x)) for x in xs_flat]
    in_tree = treedef_tuple([init_tree, xs_tree])
    traced = _trace_body(f, in_tree, init_avals, x_avals)
    carry_tree, carry_avals = traced[2], traced[0].out_avals[:traced[2].num_leaves]
    if carry_tree.num_leaves != len(init_avals):
        common.check_carry_type("scan body", f, init_tree, init_avals, carry_tree, carry_avals)
    promoted = [common.promote_weak_input(x, a, b)
                for x, a, b in zip(init_flat, init_avals, carry_avals)]
    if any(changed for _, changed in promoted):
        init_flat = [x for x, _ in promoted]
        init_avals = [core.get_aval(x) for x in init_flat]
        traced = _trace_body(f, in_tree, init_avals, x_avals)
    jaxpr, consts, carry_tree, out_tree = traced
    common.check_carry_type("scan body", f, init_tree, init_avals, carry_tree,
                            jaxpr.out_avals[:len(init_avals)])
    unroll = _check_unroll(unroll, length)
    outs = _bind_scan(jaxpr, consts, init_flat, xs_flat, length, reverse, unroll, origin)
    return tree_unflatten(out_tree, outs)  # the body's (carry, y) container, list or tuple


def _slice_aval(aval):
    return ShapedArray(aval.shape[1:], aval.dtype, aval.weak_type)


class _AvalStr:
    """Shows an aval in an error message as JAX does: `~float32[]` alone, its repr
    `ShapedArray(float32[], weak_type=True)` inside a container."""

    def __init__(self, aval):
        self.aval = aval

    def __str__(self):
        return ("~" if self.aval.weak_type else "") + common.long_aval(self.aval)

    def __repr__(self):
        return repr(self.aval)


def _trace_body(f, in_tree, carry_avals, x_avals):
    """-> (jaxpr, consts, carry treedef, treedef of the (carry, y) output)."""
    jaxpr, consts, out_tree = common.trace_jaxpr(f, in_tree, [*carry_avals, *x_avals], "scan")
    children = out_tree.children() if out_tree.num_nodes > 1 else []
    if out_tree.num_nodes == 1 or len(children) != 2:
        shown = tree_unflatten(out_tree, [_AvalStr(a) for a in jaxpr.out_avals])
        raise TypeError(f"scan body output must be a pair, got {shown}.")
    return jaxpr, consts, children[0], out_tree


def _infer_length(xs_flat, length) -> int:
    try:
        lengths = [x.shape[0] for x in xs_flat]
    except (AttributeError, IndexError):
        bad = ", ".join(str(x) for x in xs_flat if not np.shape(x))
        raise ValueError(f"scan got value with no leading axis to scan over: {bad}.") from None
    if length is not None:
        length = core.concrete_or_error(
            operator.index, length, "The `length` argument to `scan` expects a concrete "
            "`int` value. For scan-like iteration with a dynamic length, use `while_loop` "
            "or `fori_loop`.")
        if not all(length == n for n in lengths):
            raise ValueError(f"scan got `length` argument of {length} which disagrees with "
                             f"leading axis sizes {lengths}.")
        return length
    if len(set(lengths)) > 1:
        raise ValueError("scan got values with different leading axis sizes: "
                         f"{', '.join(str(n) for n in lengths)}.")
    if not lengths:
        raise ValueError("scan got no values to scan over and `length` not provided.")
    return lengths[0]


def _check_unroll(unroll, length: int) -> int:
    unroll = core.concrete_or_error(None, unroll, "The `unroll` argument to `scan` expects "
                                    "a concrete `int` or `bool` value.")
    if isinstance(unroll, bool):
        return max(length, 1) if unroll else 1
    unroll = int(unroll)
    if unroll < 0:
        raise ValueError("`unroll` must be a `bool` or a non-negative `int`.")
    return unroll


def _scan_python(f, init, xs_flat, xs_tree, length, reverse):
    """jax_disable_jit: a Python loop."""
    if length == 0:
        raise ValueError("zero-length scan is not supported in disable_jit() mode because "
                         "the output type is unknown.")
    carry, ys = init, []
    steps = range(length - 1, -1, -1) if reverse else range(length)
    for i in steps:
        x = tree_unflatten(xs_tree, [shapes.index_in_dim(v, i, 0, keepdims=False)
                                     for v in xs_flat])
        carry, y = f(carry, x)
        ys.append(y)
    if reverse:
        ys.reverse()
    return carry, tree_map(lambda *vs: shapes.concatenate(
        [shapes.expand_dims(v, (0,)) for v in vs], 0), *ys)


def _bind_scan(jaxpr, consts, init, xs, length, reverse, unroll, origin=None) -> list:
    """Binds scan, first moving carries the body merely forwards to the constants and
    dropping ys that merely forward an x (both returned directly)."""
    num_carry, num_xs = len(init), len(xs)
    fwd = common.jaxpr_forwarding(jaxpr.jaxpr)
    carry_fwd, ext_fwd = fwd[:num_carry], fwd[num_carry:]
    num_ys = len(ext_fwd)
    move = [f == len(consts) + i for i, f in enumerate(carry_fwd)]
    args = [*init, *xs]
    new_consts: list = []
    if any(move):
        jaxpr = common.prune_outputs(jaxpr, [not m for m in move] + [True] * num_ys)
        jaxpr = common.move_binders_to_front(
            jaxpr, [False] * len(consts) + move + [False] * num_xs)
        args, new_consts = partition_list(move + [False] * num_xs, args)
        consts = [*new_consts, *consts]
        num_carry -= len(new_consts)
    ext_to_ext = [f - len(consts) if f is not None and f >= num_carry + len(consts) else None
                  for f in ext_fwd]
    jaxpr = common.prune_outputs(jaxpr, [True] * num_carry + [f is None for f in ext_to_ext])
    common.note_loop_origin(jaxpr, origin)
    outs = state_types.bind(scan_p, *consts, *args, reverse=reverse, length=length,
                            jaxpr=jaxpr, num_consts=len(consts), num_carry=num_carry,
                            unroll=unroll)
    carry_out, ys = split_list(outs, [num_carry])
    ys_it = iter(ys)
    ys = [next(ys_it) if f is None else common.as_value(args[f]) for f in ext_to_ext]
    outs = [*carry_out, *ys]
    if any(move):
        outs = merge_lists(move + [False] * num_ys, outs, new_consts)
    return outs


# ----------------------------------------------------------------------------------------
# Abstract evaluation, eager evaluation, effects
# ----------------------------------------------------------------------------------------


def _stacked(aval, length: int):
    return ShapedArray((length, *aval.shape), aval.dtype, aval.weak_type)


def _scan_abstract_eval(*avals, reverse, length, jaxpr, num_consts, num_carry, unroll):
    if len(avals) != len(jaxpr.in_avals):
        raise TypeError(f"scan number of arguments doesn't match the number of jaxpr "
                        f"arguments: {len(avals)} vs {len(jaxpr.in_avals)}")
    carry_in = avals[num_consts:num_consts + num_carry]
    carry_out, y_avals = split_list(jaxpr.out_avals, [num_carry])
    if not all(map(core.typematch, carry_in, carry_out)):
        raise TypeError("scan carry input and output types differ: "
                        f"{[a.str_short() for a in carry_in]} vs "
                        f"{[a.str_short() for a in carry_out]}")
    for a in avals[num_consts + num_carry:]:
        if not a.shape or a.shape[0] != length:
            raise TypeError(f"scan xs must have leading axis {length}, got {a.str_short()}")
    return [*carry_out, *[_stacked(a, length) for a in y_avals]]


def _scan_effects(*, jaxpr, **params):
    return jaxpr.effects


def _scan_impl(*args, reverse, length, jaxpr, num_consts, num_carry, unroll):
    eager.check_no_tracers(args)
    params = dict(reverse=reverse, length=length, jaxpr=jaxpr, num_consts=num_consts,
                  num_carry=num_carry, unroll=unroll)
    in_avals = [core.get_aval(a) for a in args]
    out_avals = _scan_abstract_eval(*in_avals, **params)
    steps = length * max(1, len(jaxpr.eqns))
    if eager.unordered_effects_only([jaxpr], in_avals):
        return eager.run_jitted(scan_p, args, params)
    if not eager.interpretable_only([jaxpr], in_avals) and steps > eager.INTERPRET_BUDGET:
        outs = eager.run_compiled(scan_p, jaxpr, args, params, out_avals)
        if outs is not None:
            return outs
    return _scan_interpret(args, out_avals, **params)


def _scan_interpret(args, out_avals, *, reverse, length, jaxpr, num_consts, num_carry,
                    unroll):
    consts, carry, xs = split_list(args, [num_consts, num_carry])
    x_avals = [core.get_aval(x) for x in xs]
    ys_steps = []
    for t in range(length):
        i = length - 1 - t if reverse else t
        x_t = [eager.index_leading(x, i, a) for x, a in zip(xs, x_avals)]
        outs = closed_call(jaxpr, *consts, *carry, *x_t)
        carry, y_t = outs[:num_carry], outs[num_carry:]
        ys_steps.append(y_t)
    if reverse:
        ys_steps.reverse()
    y_avals = jaxpr.out_avals[num_carry:]
    ys = [eager.stack_leading([s[k] for s in ys_steps], a, length)
          for k, a in enumerate(y_avals)]
    return [eager.as_array(v, a) for v, a in zip([*carry, *ys], out_avals)]


# ----------------------------------------------------------------------------------------
# JVP
# ----------------------------------------------------------------------------------------


def _jvp_fixpoint(jaxpr, const_nz, init_nz, xs_nz, num_ys):
    carry_nz = list(init_nz)
    for _ in range(1 + len(carry_nz)):
        nonzeros = [*const_nz, *carry_nz, *xs_nz]
        jvp, out_nz = ad.jvp_jaxpr(jaxpr, nonzeros, instantiate=carry_nz + [False] * num_ys)
        if out_nz[:len(carry_nz)] == carry_nz:
            return jvp, nonzeros, out_nz
        carry_nz = common.or_lists(carry_nz, out_nz[:len(carry_nz)])
    raise AssertionError("scan JVP: fixpoint not reached")


def _scan_jvp(primals, tangents, *, reverse, length, jaxpr, num_consts, num_carry, unroll):
    num_xs = len(jaxpr.in_avals) - num_consts - num_carry
    num_ys = len(jaxpr.out_avals) - num_carry
    nz = [type(t) is not Zero for t in tangents]
    const_nz, init_nz, xs_nz = split_list(nz, [num_consts, num_carry])
    jvp, nonzeros, out_nz = memoized(
        "jvp", jaxpr, tuple(nz), lambda: _jvp_fixpoint(jaxpr, const_nz, init_nz, xs_nz, num_ys))
    tangents = [ad.instantiate_zeros(t) if n else t for t, n in zip(tangents, nonzeros)]
    consts, init, xs = split_list(primals, [num_consts, num_carry])
    c_dot, i_dot, x_dot = [common.prune_zeros(g) for g in
                           split_list(tangents, [num_consts, num_carry])]
    jvp = common.rearrange_binders(
        jvp, [num_consts, num_carry, num_xs], [len(c_dot), len(i_dot), len(x_dot)],
        [num_carry, num_ys], [len(i_dot), sum(out_nz) - len(i_dot)])
    outs = scan_p.bind(*consts, *c_dot, *init, *i_dot, *xs, *x_dot, reverse=reverse,
                       length=length, jaxpr=jvp, num_consts=num_consts + len(c_dot),
                       num_carry=num_carry + len(i_dot), unroll=unroll)
    carry, carry_dot, ys, ys_dot = split_list(outs, [num_carry, len(i_dot), num_ys])
    primals_out = [*carry, *ys]
    t_it = iter([*carry_dot, *ys_dot])
    return primals_out, [next(t_it) if n else Zero(core.get_aval(p).to_tangent_aval())
                         for p, n in zip(primals_out, out_nz)]


# ----------------------------------------------------------------------------------------
# Partial evaluation
# ----------------------------------------------------------------------------------------


def _pe_fixpoint(jaxpr, const_uk, init_uk, xs_uk, num_ys):
    carry_uk = list(init_uk)
    for _ in range(1 + len(carry_uk)):
        uks = [*const_uk, *carry_uk, *xs_uk]
        known, unknown, out_uk, res_avals = pe.partial_eval_jaxpr_nounits(
            jaxpr, uks, instantiate=carry_uk + [False] * num_ys)
        if out_uk[:len(carry_uk)] == carry_uk:
            return known, unknown, uks, out_uk, len(res_avals)
        carry_uk = common.or_lists(carry_uk, out_uk[:len(carry_uk)])
    raise AssertionError("scan partial eval: fixpoint not reached")


def _forward_residuals(known: ClosedJaxpr, num_res: int, nck: int, nkk: int, fwd_ok):
    """Residuals that are known consts or xs are passed directly, not returned by the known
    loop (carries change every step, so they cannot be; nor, as in JAX, can NumPy
    constants). -> (known, per residual the known-input index it forwards or None)."""
    jaxpr = known.jaxpr
    n_out = len(jaxpr.outvars) - num_res
    pos = {v: i for i, v in enumerate(jaxpr.invars)}
    fwd = []
    for v in jaxpr.outvars[n_out:]:
        i = pos.get(v) if type(v) is core.Var else None
        ok = i is not None and (i < nck or i >= nck + nkk) and fwd_ok[i]
        fwd.append(i if ok else None)
    outvars = jaxpr.outvars[:n_out] + [v for v, f in zip(jaxpr.outvars[n_out:], fwd)
                                       if f is None]
    return ClosedJaxpr(jaxpr.replace(outvars=outvars), known.consts), fwd


def _hoist(known: ClosedJaxpr, nck: int, num_known_outs: int, num_res: int):
    """Splits the known body into a loop-invariant part (of the known consts only: its
    residual outputs are hoisted out of the loop) and the loop body proper.
    -> (invariant jaxpr: consts -> [hoisted res, body consts], body, which res hoisted)."""
    n_in = len(known.in_avals)
    if nck == 0:
        return None, known, [False] * num_res
    inv, body, out_uk, _ = pe.partial_eval_jaxpr_nounits(
        known, [False] * nck + [True] * (n_in - nck),
        instantiate=[True] * num_known_outs + [False] * num_res)
    return inv, body, [not u for u in out_uk[num_known_outs:]]


def _split_scan(jaxpr, uks_in, num_consts, num_carry, fwd_ok):
    num_ys = len(jaxpr.out_avals) - num_carry
    const_uk, init_uk, xs_uk = split_list(uks_in, [num_consts, num_carry])
    known, unknown, uks, out_uk, num_res = _pe_fixpoint(jaxpr, const_uk, init_uk, xs_uk,
                                                        num_ys)
    # dead code out (JAX's linearization DCEs both halves, cond branches included)
    known = common.dce_closed(known, [True] * len(known.out_avals))
    unknown = common.dce_closed(unknown, [True] * len(unknown.out_avals))
    nck = num_consts - sum(const_uk)
    nkk = num_carry - sum(uks[num_consts:num_consts + num_carry])
    known_fwd_ok = [ok for ok, uk in zip(fwd_ok, uks) if not uk]
    known, fwd = _forward_residuals(known, num_res, nck, nkk, known_fwd_ok)
    num_known_outs = len(out_uk) - sum(out_uk)
    inv, body, hoisted = _hoist(known, nck, num_known_outs, sum(f is None for f in fwd))
    h_it = iter(hoisted)
    extensive = [not next(h_it) if f is None else f >= nck + nkk for f in fwd]
    n_unk_in = len(unknown.in_avals) - num_res
    unknown = common.move_binders_to_back(unknown, extensive + [False] * n_unk_in)
    return dict(uks=uks, out_uk=out_uk, fwd=fwd, inv=inv, body=body, hoisted=hoisted,
                extensive=extensive, unknown=unknown, nck=nck, nkk=nkk)


def _scan_partial_eval(trace: pe.JaxprTrace, *args, reverse, length, jaxpr, num_consts,
                       num_carry, unroll):
    uks_in = tuple(trace.is_unknown(x) for x in args)
    fwd_ok = tuple(not isinstance(x, np.ndarray) for x in args)
    s = memoized("pe", jaxpr, (uks_in, num_consts, num_carry, fwd_ok),
                 lambda: _split_scan(jaxpr, uks_in, num_consts, num_carry, fwd_ok))
    uks = s["uks"]
    known_ins = [x for x, uk in zip(args, uks) if not uk]
    kc, kin = known_ins[:s["nck"]], known_ins[s["nck"]:]
    with core.set_current_trace(trace.parent_trace):
        inv_outs = closed_call(s["inv"], *kc) if s["inv"] is not None else []
        n_h = sum(s["hoisted"])
        hoisted, body_consts = inv_outs[:n_h], (inv_outs[n_h:] if s["inv"] else kc)
        body = s["body"]
        n_known_outs = len(s["out_uk"]) - sum(s["out_uk"])
        outs = (scan_p.bind(*body_consts, *kin, reverse=reverse, length=length, jaxpr=body,
                            num_consts=len(body_consts), num_carry=s["nkk"], unroll=unroll)
                if body.out_avals or body.effects else [])
    known_outs, ext_res = outs[:n_known_outs], outs[n_known_outs:]
    non_fwd = iter(merge_lists(s["hoisted"], ext_res, hoisted))
    res = [next(non_fwd) if f is None else known_ins[f] for f in s["fwd"]]
    int_res, ext_res = partition_list(s["extensive"], res)
    unknown_ins = [x for x, uk in zip(args, uks) if uk]
    const_uk = uks[:num_consts]
    params = dict(reverse=reverse, length=length, jaxpr=s["unknown"],
                  num_consts=len(int_res) + sum(const_uk),
                  num_carry=sum(uks[num_consts:num_consts + num_carry]), unroll=unroll)
    atoms = [trace.to_atom(x) for x in [*int_res, *unknown_ins, *ext_res]]
    out_avals = _scan_abstract_eval(*[a.aval for a in atoms], **params)
    unknown_outs = trace.emit(scan_p, atoms, out_avals, params)
    k_it, u_it = iter(known_outs), iter(unknown_outs)
    return [next(u_it) if uk else next(k_it) for uk in s["out_uk"]]


# ----------------------------------------------------------------------------------------
# Transpose
# ----------------------------------------------------------------------------------------


def _transpose_body(jaxpr, const_lin, xs_lin, num_carry, ct_avals):
    """[ires, ct_consts acc, ct_carry, ct_ys, eres] -> [ct_consts acc', ct_carry, ct_xs].
    ct_avals: the types of the accumulators, carry cotangents and nonzero ys cotangents
    (the carry's linear inputs take the type of its cotangent, as in JAX)."""
    acc_av, ctk_av, cty_av = ct_avals
    jaxpr = common.retype_invars(jaxpr, [None] * len(const_lin) + list(ctk_av))
    c_avals, _, x_avals = split_list(jaxpr.in_avals, [len(const_lin), num_carry])
    ires_av, _ = partition_list(const_lin, c_avals)
    eres_av, lin_x_av = partition_list(xs_lin, x_avals)

    def fun(*args):
        ires, acc, ct_carry, ct_ys, eres = split_list(
            args, [len(ires_av), len(acc_av), num_carry, len(cty_av)])
        consts = merge_lists(const_lin, ires, [ad.UndefinedPrimal(a) for a in acc_av])
        xs = merge_lists(xs_lin, eres, [ad.UndefinedPrimal(a) for a in lin_x_av])
        carry = [ad.UndefinedPrimal(a) for a in ctk_av]
        # the constants' cotangents accumulate into the carried accumulators as they
        # arrive (JAX's order of add_any)
        init = merge_lists(const_lin, [None] * len(ires), acc)
        cts = ad.backward_pass(jaxpr.jaxpr, jaxpr.consts, [*consts, *carry, *xs],
                               [*ct_carry, *ct_ys], init)
        ct_c, ct_k, ct_x = split_list(cts, [len(const_lin), num_carry])
        new_acc = [ad.instantiate_zeros(c) for c, lin in zip(ct_c, const_lin) if lin]
        return [*new_acc, *[ad.instantiate_zeros(c) for c in ct_k],
                *[ad.instantiate_zeros(c) for c, lin in zip(ct_x, xs_lin) if lin]]
    avals = [*ires_av, *acc_av, *ctk_av, *cty_av, *eres_av]
    return common.trace_flat(fun, avals, "transpose")


def _prune_for_transpose(jaxpr, const_lin, xs_lin, num_carry, ct_ys_nz):
    """The body without the ys whose cotangents are zero and without the residual inputs
    only they read. -> (jaxpr, which inputs are kept)."""
    used_out = [True] * num_carry + list(ct_ys_nz)
    inst = [*const_lin, *[True] * num_carry, *xs_lin]
    _, used = pe.dce_jaxpr(jaxpr.jaxpr, used_out, instantiate=inst)
    return common.dce_closed(jaxpr, used_out, used), used


def _scan_transpose(cts, *args, reverse, length, jaxpr, num_consts, num_carry, unroll):
    ct_carry, ct_ys = split_list(cts, [num_carry])
    lin = tuple(ad.is_undefined_primal(a) for a in args)
    ct_ys_nz = tuple(type(c) is not Zero for c in ct_ys)
    body, used = memoized("transpose_prune", jaxpr, (lin, num_consts, num_carry, ct_ys_nz),
                          lambda: _prune_for_transpose(jaxpr, lin[:num_consts],
                                                       lin[num_consts + num_carry:],
                                                       num_carry, ct_ys_nz))
    consts, init, xs = split_list(args, [num_consts, num_carry])
    consts = [c for c, u in zip(consts, used[:num_consts]) if u]
    xs = [x for x, u in zip(xs, used[num_consts + num_carry:]) if u]
    # Carries are linear in the body even when their initial value is a known constant
    # (an instantiated zero tangent); such inputs get no cotangent.
    const_lin = tuple(ad.is_undefined_primal(c) for c in consts)
    xs_lin = tuple(ad.is_undefined_primal(x) for x in xs)
    ires, lin_c = partition_list(const_lin, consts)
    eres, _ = partition_list(xs_lin, xs)
    acc = [common.zeros_like(c.aval.to_tangent_aval()) for c in lin_c]
    ct_carry = [ad.instantiate_zeros(c) for c in ct_carry]
    ct_ys = common.prune_zeros(ct_ys)
    ct_avals = (tuple(core.get_aval(a) for a in acc),
                tuple(core.get_aval(c) for c in ct_carry),
                tuple(_slice_aval(core.get_aval(c)) for c in ct_ys))
    trans = memoized("transpose", body, (const_lin, xs_lin, ct_avals),
                     lambda: _transpose_body(body, const_lin, xs_lin, num_carry, ct_avals))
    outs = scan_p.bind(*ires, *acc, *ct_carry, *ct_ys, *eres, reverse=not reverse,
                       length=length, jaxpr=trans, num_consts=len(ires),
                       num_carry=len(acc) + num_carry, unroll=unroll)
    ct_c, ct_init, ct_x = split_list(outs, [len(acc), num_carry])
    c_it, x_it = iter(ct_c), iter(ct_x)
    ct_init = [c if ad.is_undefined_primal(x) else None for c, x in zip(ct_init, init)]
    return ([next(c_it) if lin[i] else None for i in range(num_consts)] + ct_init
            + [next(x_it) if lin[num_consts + num_carry + i] else None
               for i in range(len(lin) - num_consts - num_carry)])


# ----------------------------------------------------------------------------------------
# Batching and DCE
# ----------------------------------------------------------------------------------------


def _batch_fixpoint(jaxpr, axis_data, const_b, init_b, xs_b, num_ys):
    carry_b = list(init_b)
    for _ in range(1 + len(carry_b)):
        batched, out_b = common.batch_jaxpr(jaxpr, axis_data, [*const_b, *carry_b, *xs_b],
                                            carry_b + [False] * num_ys)
        if out_b[:len(carry_b)] == carry_b:
            return batched, carry_b, out_b[len(carry_b):]
        carry_b = common.or_lists(carry_b, out_b[:len(carry_b)])
    raise AssertionError("scan batching: fixpoint not reached")


def _scan_batch(axis_data, vals, dims, *, reverse, length, jaxpr, num_consts, num_carry,
                unroll):
    num_ys = len(jaxpr.out_avals) - num_carry
    bat = [d is not None for d in dims]
    const_b, init_b, xs_b = split_list(bat, [num_consts, num_carry])
    batched, carry_b, ys_b = memoized(
        ("vmap", axis_data.size, axis_data.name), jaxpr, tuple(bat),
        lambda: _batch_fixpoint(jaxpr, axis_data, const_b, init_b, xs_b, num_ys))
    consts, init, xs = split_list(vals, [num_consts, num_carry])
    c_d, i_d, x_d = split_list(dims, [num_consts, num_carry])
    consts = [batching.moveaxis(x, d, 0) if d is not None else x for x, d in zip(consts, c_d)]
    init = [batching.matchaxis(axis_data.size, d, 0, x) if b else x
            for x, d, b in zip(init, i_d, carry_b)]
    xs = [batching.moveaxis(x, d, 1) if d is not None else x for x, d in zip(xs, x_d)]
    outs = scan_p.bind(*consts, *init, *xs, reverse=reverse, length=length, jaxpr=batched,
                       num_consts=num_consts, num_carry=num_carry, unroll=unroll)
    return outs, [0 if b else None for b in carry_b] + [1 if b else None for b in ys_b]


def _scan_dce(used_outputs, eqn):
    p = eqn.params
    jaxpr, num_consts, num_carry = p["jaxpr"], p["num_consts"], p["num_carry"]
    if not any(used_outputs) and not jaxpr.effects:
        return [False] * len(eqn.invars), None
    num_xs = len(jaxpr.in_avals) - num_consts - num_carry
    used_carry, used_ys = split_list(used_outputs, [num_carry])
    for _ in range(1 + num_carry):
        used_out = [*used_carry, *used_ys]
        dced, used_in = pe.dce_jaxpr(jaxpr.jaxpr, used_out, instantiate=(
            [False] * num_consts + used_carry + [False] * num_xs))
        used_carry_in = used_in[num_consts:num_consts + num_carry]
        if used_carry_in == used_carry:
            break
        used_carry = common.or_lists(used_carry, used_carry_in)
    keep = set(dced.constvars)
    closed = ClosedJaxpr(dced, [c for v, c in zip(jaxpr.jaxpr.constvars, jaxpr.consts)
                                if v in keep])
    params = dict(p, jaxpr=closed, num_consts=sum(used_in[:num_consts]),
                  num_carry=sum(used_carry))
    new_eqn = eqn.replace(invars=[v for v, u in zip(eqn.invars, used_in) if u],
                          outvars=[v for v, u in zip(eqn.outvars, used_out) if u],
                          params=params)
    return used_in, new_eqn


scan_p = def_primitive(
    "scan", abstract_eval=_scan_abstract_eval, impl=None, eager_impl=_scan_impl,
    jvp=_scan_jvp, transpose=_scan_transpose, batch=_scan_batch,
    lower=loop_lowering.lower_scan, multiple_results=True)
scan_p.is_higher_order = True
pe.partial_eval_rules[scan_p] = _scan_partial_eval
pe.dce_rules[scan_p] = _scan_dce
pe.effects_rules[scan_p] = _scan_effects
