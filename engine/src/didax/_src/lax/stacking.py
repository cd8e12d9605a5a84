"""The array-assembly primitives JAX 0.10 stages for jnp.stack / jnp.unstack / jnp.tile:
`stack[axis]` (n same-shaped operands joined along a new axis), `unstack[axis]` (its
inverse, one result per slice) and `tile[reps]` (an operand repeated along each axis),
each declared once with every rule.

May import core, dtypes, the interpreters, lax._define, lax.lax and lax.shapes.
"""

from __future__ import annotations

import operator

import numpy as np

from didax._src.core import ShapedArray
from didax._src.interpreters import ad, batching  # noqa: F401
from didax._src.interpreters.ad import Zero
from didax._src.interpreters.lowering import i64_array
from didax._src.lax import shapes
from didax._src.lax._define import check_same_dtypes, def_primitive

# ----------------------------------------------------------------------------------------
# stack / unstack
# ----------------------------------------------------------------------------------------


def _stack_abstract_eval(*xs, axis):
    if not xs:
        raise ValueError("stack requires at least one operand")
    shape = xs[0].shape
    if any(x.shape != shape for x in xs[1:]):
        raise ValueError("All input arrays must have the same shape. Got "
                         f"{', '.join(str(x.shape) for x in xs)}.")
    check_same_dtypes("stack", *xs)
    if not 0 <= axis <= len(shape):
        raise ValueError(f"stack axis {axis} out of bounds for rank {len(shape)}")
    out = (*shape[:axis], len(xs), *shape[axis:])
    return ShapedArray(out, xs[0].dtype, all(x.weak_type for x in xs))


def _stack_jvp(primals, tangents, *, axis):
    ans = stack_p.bind(*primals, axis=axis)
    if all(type(t) is Zero for t in tangents):
        return ans, Zero.from_primal_value(ans)
    return ans, stack_p.bind(*[ad.instantiate_zeros(t) for t in tangents], axis=axis)


def _stack_transpose(ct, *xs, axis):
    if type(ct) is Zero:
        return [Zero(x.aval) if ad.is_undefined_primal(x) else None for x in xs]
    parts = unstack_p.bind(ct, axis=axis)
    return [p if ad.is_undefined_primal(x) else None for p, x in zip(parts, xs)]


def _stack_batch(axis_data, vals, dims, *, axis):
    xs = [batching.bdim_at_front(x, d, axis_data.size) for x, d in zip(vals, dims)]
    return stack_p.bind(*xs, axis=axis + 1), 0


def _stack_lower(ctx, *xs, axis):
    out = ctx.avals_out[0]
    piece = ShapedArray((*out.shape[:axis], 1, *out.shape[axis + 1:]), out.dtype)
    dims = [i for i in range(len(out.shape)) if i != axis]
    parts = [ctx.fn.op1("stablehlo.broadcast_in_dim", [x], piece,
                        f"broadcast_dimensions = {i64_array(dims)}") for x in xs]
    if len(parts) == 1:
        return parts[0]
    return ctx.fn.op1("stablehlo.concatenate", parts, out, f"dimension = {axis} : i64")


stack_p = def_primitive(
    "stack", abstract_eval=_stack_abstract_eval,
    impl=lambda *xs, axis: np.stack(xs, axis=axis), jvp=_stack_jvp,
    transpose=_stack_transpose, batch=_stack_batch, lower=_stack_lower)


def _unstack_abstract_eval(x, *, axis):
    if not 0 <= axis < x.ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {x.ndim}")
    shape = (*x.shape[:axis], *x.shape[axis + 1:])
    return [ShapedArray(shape, x.dtype, x.weak_type)] * x.shape[axis]


def _unstack_jvp(primals, tangents, *, axis):
    ans = unstack_p.bind(primals[0], axis=axis)
    if type(tangents[0]) is Zero:
        return ans, [Zero.from_primal_value(a) for a in ans]
    return ans, unstack_p.bind(tangents[0], axis=axis)


def _unstack_transpose(cts, x, *, axis):
    cts = [shapes.full(ct.aval.shape, 0, ct.aval.dtype) if type(ct) is Zero else ct
           for ct in cts]
    return [stack_p.bind(*cts, axis=axis)]


def _unstack_batch(axis_data, vals, dims, *, axis):
    (x,), (d,) = vals, dims
    x = batching.moveaxis(x, d, 0)
    outs = unstack_p.bind(x, axis=axis + 1)
    return outs, [0] * len(outs)


def _unstack_lower(ctx, x, *, axis):
    shape = x.aval.shape
    outs = []
    for i, aval in enumerate(ctx.avals_out):
        starts = [0] * len(shape)
        limits = list(shape)
        starts[axis], limits[axis] = i, i + 1
        piece = ShapedArray((*shape[:axis], 1, *shape[axis + 1:]), x.aval.dtype)
        sl = ctx.fn.op1("stablehlo.slice", [x], piece,
                        f"start_indices = {i64_array(starts)}, limit_indices = "
                        f"{i64_array(limits)}, strides = {i64_array([1] * len(shape))}")
        outs.append(ctx.fn.op1("stablehlo.reshape", [sl], aval))
    return outs


unstack_p = def_primitive(
    "unstack", abstract_eval=_unstack_abstract_eval,
    impl=lambda x, axis: [np.take(x, i, axis=axis) for i in range(x.shape[axis])],
    jvp=_unstack_jvp, transpose=_unstack_transpose, batch=_unstack_batch,
    lower=_unstack_lower, multiple_results=True)


def stack(arrays, axis: int = 0):
    """Joins same-shaped arrays along a new axis (JAX's `lax.stack`)."""
    return stack_p.bind(*arrays, axis=operator.index(axis))


def unstack(x, axis: int = 0):
    """The slices of x along axis, as a tuple."""
    return tuple(unstack_p.bind(x, axis=operator.index(axis)))


# ----------------------------------------------------------------------------------------
# tile
# ----------------------------------------------------------------------------------------


def _tile_abstract_eval(x, *, reps):
    if len(reps) != x.ndim:
        raise ValueError(f"tile reps {reps} must have one entry per operand dimension, got "
                         f"an operand of rank {x.ndim}")
    if any(r < 0 for r in reps):
        raise ValueError(f"tile reps must be non-negative, got {reps}")
    return ShapedArray(tuple(d * r for d, r in zip(x.shape, reps)), x.dtype, x.weak_type)


def _interleaved(shape, reps):
    return tuple(v for r, d in zip(reps, shape) for v in (r, d))


def _tile_transpose(ct, x, *, reps):
    shape = x.aval.shape
    if type(ct) is Zero:
        return [Zero(x.aval)]
    split = shapes.reshape(ct, _interleaved(shape, reps))
    summed = shapes.reduce_sum(split, tuple(range(0, 2 * len(shape), 2)))
    return [summed]


def _tile_batch(axis_data, vals, dims, *, reps):
    (x,), (d,) = vals, dims
    reps = (*reps[:d], 1, *reps[d:])
    return tile_p.bind(x, reps=reps), d


def _tile_lower(ctx, x, *, reps):
    shape = x.aval.shape
    out = ctx.avals_out[0]
    ones = ShapedArray(_interleaved(shape, (1,) * len(shape)), x.aval.dtype)
    big = ShapedArray(_interleaved(shape, reps), x.aval.dtype)
    r = ctx.fn.op1("stablehlo.reshape", [x], ones)
    b = ctx.fn.op1("stablehlo.broadcast_in_dim", [r], big,
                   f"broadcast_dimensions = {i64_array(range(len(ones.shape)))}")
    return ctx.fn.op1("stablehlo.reshape", [b], out)


def _tile_jvp(primals, tangents, *, reps):
    ans = tile_p.bind(primals[0], reps=reps)
    if type(tangents[0]) is Zero:
        return ans, Zero.from_primal_value(ans)
    return ans, tile_p.bind(tangents[0], reps=reps)


tile_p = def_primitive(
    "tile", abstract_eval=_tile_abstract_eval, impl=lambda x, reps: np.tile(x, reps),
    jvp=_tile_jvp, transpose=_tile_transpose, batch=_tile_batch, lower=_tile_lower)


def tile(operand, reps):
    """operand repeated reps[i] times along axis i (len(reps) == operand.ndim)."""
    return tile_p.bind(operand, reps=tuple(operator.index(r) for r in reps))
