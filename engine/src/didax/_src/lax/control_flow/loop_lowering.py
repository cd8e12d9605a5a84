"""Lowering `scan` and `while` to `stablehlo.while` (generic MLIR form).

A scan becomes a counted loop whose carried values are the step counter, the constants,
the carry, the scanned-over inputs and the stacked outputs; each step slices its `x` with
`dynamic_slice` and writes its `y` with `dynamic_update_slice` (`unroll` steps per loop
iteration, the remainder after the loop). A while loop carries its constants and carry;
with a batched predicate (vmap) it keeps iterating while any lane is live and freezes
finished lanes with `select`. When the enclosing function threads an effect token and the
body has ordered effects, the token is a loop-carried value too.

May import core, util and interpreters.lowering.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from didax._src import core
from didax._src.core import ShapedArray
from didax._src.interpreters import lowering
from didax._src.interpreters.lowering import FuncBuilder, TokenState, Value, i64_array
from didax._src.util import split_list

I32 = ShapedArray((), np.int32)
PRED = ShapedArray((), np.bool_)


def has_ordered(jaxprs) -> bool:
    return any(getattr(e, "ordered", False) for j in jaxprs for e in j.effects)


def _i32(fn: FuncBuilder, v: int) -> Value:
    return fn.const(v, I32)


def _add(fn: FuncBuilder, x: Value, y: Value) -> Value:
    return fn.op1("stablehlo.add", [x, y], x.aval)


def emit_while(fn: FuncBuilder, init: Sequence[Value],
               cond: Callable[[FuncBuilder, list[Value]], Value],
               body: Callable[[FuncBuilder, list[Value]], list[Value]]) -> list[Value]:
    """`stablehlo.while` over init; cond and body build the regions from the loop values."""
    avals = [v.aval for v in init]
    cond_region = fn.region(avals, lambda b, args: [cond(b, args)])
    body_region = fn.region(avals, body)
    return fn.op("stablehlo.while", list(init), avals, regions=[cond_region, body_region])


# ----------------------------------------------------------------------------------------
# scan
# ----------------------------------------------------------------------------------------


def _leading_slice(fn: FuncBuilder, x: Value, idx: Value) -> Value:
    """x[idx] for a dynamic idx along the leading axis."""
    aval = x.aval
    phys = core.physical_aval(aval).shape
    zero = _i32(fn, 0)
    sliced = ShapedArray((1, *aval.shape[1:]), aval.dtype)
    y = fn.op1("stablehlo.dynamic_slice", [x, idx, *[zero] * (len(phys) - 1)], sliced,
               f"slice_sizes = {i64_array((1, *phys[1:]))}")
    return fn.op1("stablehlo.reshape", [y], ShapedArray(aval.shape[1:], aval.dtype))


def _leading_update(fn: FuncBuilder, buf: Value, v: Value, idx: Value) -> Value:
    """buf with buf[idx] = v along the leading axis."""
    phys = core.physical_aval(buf.aval).shape
    zero = _i32(fn, 0)
    v1 = fn.op1("stablehlo.reshape", [v], ShapedArray((1, *v.aval.shape), v.aval.dtype))
    return fn.op1("stablehlo.dynamic_update_slice", [buf, v1, idx, *[zero] * (len(phys) - 1)],
                  buf.aval)


class _ScanSpec:
    __slots__ = ("jaxpr", "num_consts", "num_carry", "length", "reverse", "ordered")

    def __init__(self, jaxpr, num_consts, num_carry, length, reverse, ordered):
        self.jaxpr, self.num_consts, self.num_carry = jaxpr, num_consts, num_carry
        self.length, self.reverse, self.ordered = length, reverse, ordered


def _scan_step(fn: FuncBuilder, spec: _ScanSpec, t: Value, state: list[Value],
               consts, xs) -> list[Value]:
    """One step at counter t: state = [token?, *carry, *ys] -> the new state."""
    tok, rest = (state[:1], state[1:]) if spec.ordered else ([], state)
    carry, ys = split_list(rest, [spec.num_carry])
    idx = fn.op1("stablehlo.subtract", [_i32(fn, spec.length - 1), t], I32) \
        if spec.reverse else t
    x_t = [_leading_slice(fn, x, idx) for x in xs]
    ts = TokenState(tok[0]) if spec.ordered else None
    outs = lowering.lower_jaxpr_body(fn, spec.jaxpr.jaxpr, spec.jaxpr.consts,
                                     [*consts, *carry, *x_t], ts, scope_name="while/body")
    new_carry, y_t = split_list(outs, [spec.num_carry])
    new_ys = [_leading_update(fn, y, v, idx) for y, v in zip(ys, y_t)]
    return ([ts.token] if spec.ordered else []) + [*new_carry, *new_ys]


def _trip_counts(length: int, unroll: int) -> tuple[int, int]:
    if unroll == 0:
        return 0, length
    trips, rem = divmod(length, unroll)
    if unroll != 1 and trips == 1 and rem == 0:
        return 0, length
    return trips, rem


def lower_scan(ctx, *args, reverse, length, jaxpr, num_consts, num_carry, unroll):
    fn = ctx.fn
    consts, init, xs = split_list(args, [num_consts, num_carry])
    ordered = ctx.tokens is not None and has_ordered([jaxpr])
    spec = _ScanSpec(jaxpr, num_consts, num_carry, length, reverse, ordered)
    y_avals = ctx.avals_out[num_carry:]
    ys = [_zeros(fn, a) for a in y_avals]
    state = ([ctx.tokens.token] if ordered else []) + [*init, *ys]
    trips, rem = _trip_counts(length, unroll)
    if trips:
        state = _scan_loop(fn, spec, state, consts, xs, trips, unroll)
    for t in range(trips * unroll, trips * unroll + rem):
        state = _scan_step(fn, spec, _i32(fn, t), state, consts, xs)
    if ordered:
        ctx.tokens.token, state = state[0], state[1:]
    return state


def _zeros(fn: FuncBuilder, aval) -> Value:
    """A zero-filled buffer of aval's type (physical data for extended dtypes)."""
    phys = core.physical_aval(aval)
    return fn.op1("stablehlo.constant", [], aval,
                  f"value = {lowering.dense_attr(np.zeros((), phys.dtype), phys)}")


def _scan_loop(fn, spec, state, consts, xs, trips, unroll):
    n_c, n_x = len(consts), len(xs)
    init = [_i32(fn, 0), *consts, *xs, *state]
    limit = trips * unroll

    def cond(b, vals):
        return lowering.compare_op(b, vals[0], _i32(b, limit), "LT", PRED)

    def body(b, vals):
        i, cs, xv, st = vals[0], vals[1:1 + n_c], vals[1 + n_c:1 + n_c + n_x], \
            vals[1 + n_c + n_x:]
        for k in range(unroll):
            t = i if k == 0 else _add(b, i, _i32(b, k))
            st = _scan_step(b, spec, t, st, cs, xv)
        return [_add(b, i, _i32(b, unroll)), *cs, *xv, *st]
    outs = emit_while(fn, init, cond, body)
    return outs[1 + n_c + n_x:]


# ----------------------------------------------------------------------------------------
# while
# ----------------------------------------------------------------------------------------


def _any(fn: FuncBuilder, pred: Value) -> Value:
    """A batched predicate reduced with `or` to a scalar."""
    axes = tuple(range(len(pred.aval.shape)))
    return lowering.reduce(fn, pred, fn.const(False, PRED), axes, "stablehlo.or", PRED)


def _select_lanes(fn: FuncBuilder, pred: Value, new: Value, old: Value) -> Value:
    phys = core.physical_aval(new.aval)
    bshape = ShapedArray(phys.shape, np.bool_)
    p = pred
    if tuple(pred.aval.shape) != tuple(phys.shape):
        p = fn.op1("stablehlo.broadcast_in_dim", [pred], bshape,
                   f"broadcast_dimensions = {i64_array(range(len(pred.aval.shape)))}")
    return fn.op1("stablehlo.select", [p, new, old], new.aval)


def lower_while(ctx, *args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    fn = ctx.fn
    if ctx.tokens is not None and has_ordered([cond_jaxpr]):
        raise NotImplementedError("ordered effects in a while_loop's cond_fun are not "
                                  "supported")
    ordered = ctx.tokens is not None and has_ordered([body_jaxpr])
    batched = bool(cond_jaxpr.out_avals[0].shape)
    nt = 1 if ordered else 0
    init = ([ctx.tokens.token] if ordered else []) + list(args)

    def pred_of(b, vals):
        cc, _, carry = split_list(vals[nt:], [cond_nconsts, body_nconsts])
        return lowering.lower_jaxpr_body(b, cond_jaxpr.jaxpr, cond_jaxpr.consts,
                                         [*cc, *carry], scope_name="while/cond")[0]

    def cond(b, vals):
        p = pred_of(b, vals)
        return _any(b, p) if batched else p

    def body(b, vals):
        cc, bc, carry = split_list(vals[nt:], [cond_nconsts, body_nconsts])
        ts = TokenState(vals[0]) if ordered else None
        new = lowering.lower_jaxpr_body(b, body_jaxpr.jaxpr, body_jaxpr.consts,
                                        [*bc, *carry], ts, scope_name="while/body")
        if batched:
            p = pred_of(b, vals)
            new = [_select_lanes(b, p, n, o) for n, o in zip(new, carry)]
        return ([ts.token] if ordered else []) + [*cc, *bc, *new]
    outs = emit_while(fn, init, cond, body)
    if ordered:
        ctx.tokens.token = outs[0]
    return outs[nt + cond_nconsts + body_nconsts:]
