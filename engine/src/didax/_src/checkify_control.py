"""checkify rules for the higher-order primitives: jit, cond, while, scan, remat and the
custom_jvp / custom_vjp calls. Each binds the primitive again with its sub-jaxprs
checkified, the error's leaves added as leading operands and results (carried by loops).

Where the error must have one structure on every path (cond branches, loop carries, a
custom rule that forwards it) it first gets placeholders for every error kind the
sub-jaxprs can raise (`merged_error`), as JAX's checkify does. A custom_jvp/custom_vjp
function is checked when it runs; its JVP/VJP rules forward the error unchanged (JAX:
checks are not added to the rules). A batched while loop (checkify of vmap of while) is
refused with JAX's error.

Registers into checkify_rules.error_checks. May import core, the interpreters, lax,
control flow, pjit, ad_checkpoint, custom_derivatives, tree_util, checkify_rules.
"""

from __future__ import annotations

import weakref

from didax._src import core
from didax._src.ad_checkpoint import remat_p
from didax._src.checkify_rules import (
    checkify_jaxpr,
    checkify_subjaxpr,
    error_checks,
    merged_error,
)
from didax._src.core import ClosedJaxpr, get_aval
from didax._src.custom_derivatives import FlatFun as _FlatFun
from didax._src.custom_derivatives import (
    SymbolicZero,
    custom_jvp_call_p,
    custom_vjp_call_p,
)
from didax._src.interpreters import ad
from didax._src.interpreters import partial_eval as pe
from didax._src.lax.control_flow import common
from didax._src.lax.control_flow.conditionals import cond_p
from didax._src.lax.control_flow.loops import while_p
from didax._src.lax.control_flow.scan import scan_p
from didax._src.pjit import jit_p
from didax._src.tree_util import tree_flatten, tree_structure
from didax._src.util import split_list


def _avals(xs) -> list:
    return [get_aval(x) for x in xs]


def _checked_for(closed: ClosedJaxpr, error, enabled_errors, args, arg_avals=None):
    """(error leaves, the checked jaxpr) for error and args (of arg_avals) into closed."""
    err_vals, err_tree = tree_flatten(error)
    avals = _avals(args) if arg_avals is None else list(arg_avals)
    return err_vals, checkify_subjaxpr(closed, enabled_errors, err_tree,
                                       [*_avals(err_vals), *avals])


# ----------------------------------------------------------------------------------------
# jit and remat
# ----------------------------------------------------------------------------------------


def jit_error_check(error, enabled_errors, *vals_in, jaxpr, name, donated_invars,
                    keep_unused, inline):
    err_vals, checked = _checked_for(jaxpr, error, enabled_errors, vals_in)
    closed, lifted = checked.derive("jit", lambda: pe.close_over_consts(checked.closed))
    n_new = len(lifted) + len(err_vals)
    outs = jit_p.bind(*lifted, *err_vals, *vals_in, jaxpr=closed, name=name,
                      donated_invars=(False,) * n_new + tuple(donated_invars),
                      keep_unused=keep_unused, inline=inline)
    return checked.unflatten(outs)


def remat_error_check(error, enabled_errors, *vals_in, jaxpr, **params):
    err_vals, checked = _checked_for(ClosedJaxpr(jaxpr, ()), error, enabled_errors, vals_in)
    open_jaxpr = checked.derive("remat",
                                lambda: pe.convert_constvars_jaxpr(checked.closed.jaxpr))
    outs = remat_p.bind(*checked.closed.consts, *err_vals, *vals_in, jaxpr=open_jaxpr,
                        **params)
    return checked.unflatten(outs)


error_checks[jit_p] = jit_error_check
error_checks[remat_p] = remat_error_check


# ----------------------------------------------------------------------------------------
# cond
# ----------------------------------------------------------------------------------------


def cond_error_check(error, enabled_errors, index, *ops, branches):
    op_avals = _avals(ops)
    error = merged_error(error, branches, enabled_errors, op_avals)
    err_vals, err_tree = tree_flatten(error)
    in_avals = [*_avals(err_vals), *op_avals]
    checked = [checkify_subjaxpr(b, enabled_errors, err_tree, in_avals) for b in branches]
    outs = cond_p.bind(index, *err_vals, *ops, branches=tuple(c.closed for c in checked))
    err0, out = checked[0].unflatten(outs)
    metadata = dict(err0._metadata)
    for c in checked[1:]:
        metadata.update(c.unflatten(outs)[0]._metadata)
    return err0._replace(_metadata=metadata), out


error_checks[cond_p] = cond_error_check


# ----------------------------------------------------------------------------------------
# while and scan
# ----------------------------------------------------------------------------------------

_BATCHED_WHILE = ("Checkify does not support batched while-loops "
                  "(checkify-of-vmap-of-while). \nHint: if possible, move the vmap to the "
                  "outer level to get vmap-of-checkify-of-while.")

_body_then_cond: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def body_then_cond(cond_jaxpr: ClosedJaxpr, body_jaxpr: ClosedJaxpr, cond_nconsts: int
                   ) -> ClosedJaxpr:
    """(cond consts, body consts, carry) -> carry: the body, then the predicate on its
    result (whose checks belong to this iteration; its value is unused)."""
    table = _body_then_cond.setdefault(body_jaxpr, {})
    hit = table.get((cond_jaxpr, cond_nconsts))
    if hit is not None:
        return hit
    c_avals = cond_jaxpr.in_avals[:cond_nconsts]

    def fun(*args):
        c_consts, rest = split_list(args, [cond_nconsts])
        out = core.eval_jaxpr(body_jaxpr.jaxpr, body_jaxpr.consts, *rest)
        core.eval_jaxpr(cond_jaxpr.jaxpr, cond_jaxpr.consts, *c_consts, *out)
        return out

    hit = common.trace_flat(fun, [*c_avals, *body_jaxpr.in_avals], "checkify")
    table[(cond_jaxpr, cond_nconsts)] = hit
    return hit


def while_error_check(error, enabled_errors, *in_flat, cond_nconsts, cond_jaxpr,
                      body_nconsts, body_jaxpr):
    if cond_jaxpr.out_avals[0].shape:
        raise ValueError(_BATCHED_WHILE)
    c_consts, b_consts, carry = split_list(in_flat, [cond_nconsts, body_nconsts])
    # the first application of the predicate
    error, _ = checkify_jaxpr(cond_jaxpr, enabled_errors, error, *c_consts, *carry)
    body = body_then_cond(cond_jaxpr, body_jaxpr, cond_nconsts)
    error = merged_error(error, [body], enabled_errors, _avals(in_flat))
    err_vals, checked_body = _checked_for(body, error, enabled_errors, in_flat)
    n_err, n_consts = len(err_vals), cond_nconsts + body_nconsts
    new_body = checked_body.derive("while", lambda: common.move_binders_to_front(
        checked_body.closed, [False] * n_err + [True] * n_consts + [False] * len(carry)))
    _, checked_cond = _checked_for(cond_jaxpr, error, enabled_errors, [*c_consts, *carry])
    new_cond = checked_cond.derive("while", lambda: common.move_binders_to_front(
        common.prune_outputs(checked_cond.closed, [False] * n_err + [True]),
        [False] * n_err + [True] * cond_nconsts + [False] * len(carry)))
    outs = while_p.bind(*c_consts, *c_consts, *b_consts, *err_vals, *carry,
                        cond_nconsts=cond_nconsts, cond_jaxpr=new_cond,
                        body_nconsts=n_consts, body_jaxpr=new_body)
    return checked_body.unflatten(outs)


def scan_error_check(error, enabled_errors, *in_flat, reverse, length, jaxpr, num_consts,
                     num_carry, unroll):
    consts, carry, xs = split_list(in_flat, [num_consts, num_carry])
    x_avals = [core.ShapedArray(a.shape[1:], a.dtype, a.weak_type) for a in _avals(xs)]
    arg_avals = [*_avals(consts), *_avals(carry), *x_avals]
    error = merged_error(error, [jaxpr], enabled_errors, arg_avals)
    err_vals, checked = _checked_for(jaxpr, error, enabled_errors, in_flat, arg_avals)
    n_err = len(err_vals)
    body = checked.derive("scan", lambda: common.move_binders_to_front(
        checked.closed, [False] * n_err + [True] * num_consts
        + [False] * (num_carry + len(xs))))
    outs = scan_p.bind(*consts, *err_vals, *carry, *xs, reverse=reverse, length=length,
                       jaxpr=body, num_consts=num_consts, num_carry=num_carry + n_err,
                       unroll=unroll)
    return checked.unflatten(outs)


error_checks[while_p] = while_error_check
error_checks[scan_p] = scan_error_check


# ----------------------------------------------------------------------------------------
# custom_jvp and custom_vjp calls
# ----------------------------------------------------------------------------------------


def _checked_fun(checked, call_jaxpr: ClosedJaxpr) -> _FlatFun:
    name = getattr(call_jaxpr.jaxpr, "debug_info", None) or "f"
    fun = _FlatFun(core.jaxpr_as_fun(checked.closed), str(name))
    fun.out_tree = tree_structure([0] * len(checked.closed.out_avals))
    return fun


def _zero_tangent(t, primal):
    if isinstance(t, SymbolicZero):
        return ad.Zero(get_aval(primal).to_tangent_aval())
    return t


def custom_jvp_error_check(error, enabled_errors, *in_vals, call_jaxpr, jvp_jaxpr_fun,
                           num_consts, symbolic_zeros):
    error = merged_error(error, [call_jaxpr], enabled_errors, _avals(in_vals))
    err_vals, checked = _checked_for(call_jaxpr, error, enabled_errors, in_vals)
    n_err = len(err_vals)
    rule = jvp_jaxpr_fun.as_flat(num_consts)

    def jvp(*xs):  # the rule on the function's arguments; the error passes through
        k = len(xs) // 2
        primals, tangents = xs[:k], xs[k:]
        outs = list(rule.call_wrapped(*primals[n_err:], *tangents[n_err:]))
        m = len(outs) // 2
        err_t = [_zero_tangent(t, p) for t, p in zip(tangents[:n_err], primals[:n_err])]
        return [*primals[:n_err], *outs[:m], *err_t, *outs[m:]]

    outs = custom_jvp_call_p.bind_custom_jvp(_checked_fun(checked, call_jaxpr),
                                             _FlatFun(jvp, rule.name),
                                             [*err_vals, *in_vals], symbolic_zeros)
    return checked.unflatten(outs)


def custom_vjp_error_check(error, enabled_errors, *in_vals, call_jaxpr, fwd, bwd,
                           num_consts, symbolic_zeros):
    error = merged_error(error, [call_jaxpr], enabled_errors, _avals(in_vals))
    err_vals, checked = _checked_for(call_jaxpr, error, enabled_errors, in_vals)
    n_err, n_out = len(err_vals), len(call_jaxpr.out_avals)
    f, b = fwd.as_flat(num_consts), bwd.as_flat(num_consts)

    def fwd_(*xs):  # the error passes through
        return [*xs[:n_err], *f.call_wrapped(*xs[n_err:])]

    def bwd_(*xs):  # residuals, then cotangents of the error (dropped) and the outputs
        n_res = len(xs) - n_err - n_out
        return [None] * n_err + list(b.call_wrapped(*xs[:n_res], *xs[n_res + n_err:]))

    outs = custom_vjp_call_p.bind_custom_vjp(
        _checked_fun(checked, call_jaxpr), _FlatFun(fwd_, f.name), _FlatFun(bwd_, b.name),
        [*err_vals, *in_vals], symbolic_zeros)
    return checked.unflatten(outs)


error_checks[custom_jvp_call_p] = custom_jvp_error_check
error_checks[custom_vjp_call_p] = custom_vjp_error_check
