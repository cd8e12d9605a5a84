"""`top_k[k, axis]`: the k largest entries along an axis and their int32 indices (ties:
lower index first), declared once with every rule, as JAX 0.10 declares it; plus the
small shape helpers of `jax.lax` built on existing primitives (`broadcast_shapes`,
`collapse`, `batch_matmul`).

May import core, dtypes, the interpreters, lax._define, lax.shapes, lax.reductions and
lax.slicing.
"""

from __future__ import annotations

import operator

import numpy as np

from didax._src import dtypes
from didax._src.core import ShapedArray
from didax._src.interpreters.ad import Zero
from didax._src.interpreters.lowering import i64_array
from didax._src.lax import shapes
from didax._src.lax._define import NONLINEAR, def_primitive


def _top_k_abstract_eval(operand, *, k, axis):
    if dtypes.is_complex(operand.dtype):
        raise ValueError("top_k is not compatible with complex inputs.")
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    if len(operand.shape) == 0:
        raise TypeError(f"top_k operand must have >= 1 dimension, got {operand.shape}")
    if not 0 <= axis < len(operand.shape):
        raise ValueError(f"axis argument out of range: axis={axis} for "
                         f"operand.shape={operand.shape}")
    shape = list(operand.shape)
    if shape[axis] < k:
        raise ValueError("k argument to top_k must be no larger than size along axis; got "
                         f"k={k} with shape={tuple(shape)} and axis={axis}")
    shape[axis] = k
    return [ShapedArray(tuple(shape), operand.dtype, operand.weak_type),
            ShapedArray(tuple(shape), np.dtype(np.int32))]


def _top_k_impl(x, *, k, axis):
    # Descending, ties by lower index: a stable sort of the negated order key. NaNs sort
    # first (largest), as XLA's comparator treats them.
    moved = np.moveaxis(x, axis, -1)
    if dtypes.is_float(x.dtype):
        key = moved.astype(np.float64)
        order = np.argsort(np.where(np.isnan(key), -np.inf, -key), axis=-1, kind="stable")
    else:  # ~ reverses the order of integers (and bools) without overflow
        order = np.argsort(~moved, axis=-1, kind="stable")
    idx = order[..., :k]
    vals = np.take_along_axis(moved, idx, axis=-1)
    return [np.moveaxis(vals, -1, axis), np.moveaxis(idx.astype(np.int32), -1, axis)]


def _top_k_jvp(primals, tangents, *, k, axis):
    from didax._src.lax import slicing  # noqa: PLC0415 - slicing sits beside this module

    (operand,), (tangent,) = primals, tangents
    vals, idxs = top_k_p.bind(operand, k=k, axis=axis)
    if type(tangent) is Zero:
        return [vals, idxs], [Zero.from_primal_value(vals), Zero.from_primal_value(idxs)]
    rank = len(np.shape(idxs))
    gather_indices = shapes.reshape(idxs, (*np.shape(idxs), 1))
    batch = tuple(i for i in range(rank) if i != axis)
    dnums = slicing.GatherDimensionNumbers(
        offset_dims=(), collapsed_slice_dims=(axis,), start_index_map=(axis,),
        operand_batching_dims=batch, start_indices_batching_dims=batch)
    t_out = slicing.gather(tangent, gather_indices, dnums, (1,) * rank)
    return [vals, idxs], [t_out, Zero.from_primal_value(idxs)]


def _top_k_batch(axis_data, vals, dims, *, k, axis):
    del axis_data
    (x,), (bdim,) = vals, dims
    if bdim <= axis:
        axis += 1
    return top_k_p.bind(x, k=k, axis=axis), [bdim, bdim]


def _top_k_lower(ctx, x, *, k, axis):
    ndim = len(ctx.avals_in[0].shape)
    perm = None
    if axis != ndim - 1:
        perm = list(range(ndim))
        perm[axis], perm[-1] = perm[-1], perm[axis]
        moved = ShapedArray(tuple(x.aval.shape[p] for p in perm), x.aval.dtype)
        x = ctx.fn.op1("stablehlo.transpose", [x], moved, f"permutation = {i64_array(perm)}")
    outs_moved = [ShapedArray(tuple(a.shape[p] for p in perm), a.dtype) if perm else a
                  for a in ctx.avals_out]
    outs = ctx.fn.op("chlo.top_k", [x], outs_moved, f"k = {k} : i64")
    if perm is None:
        return outs
    return [ctx.fn.op1("stablehlo.transpose", [o], a, f"permutation = {i64_array(perm)}")
            for o, a in zip(outs, ctx.avals_out)]


top_k_p = def_primitive(
    "top_k", abstract_eval=_top_k_abstract_eval, impl=_top_k_impl, jvp=_top_k_jvp,
    transpose=NONLINEAR, batch=_top_k_batch, lower=_top_k_lower, multiple_results=True)


def top_k(operand, k: int, *, axis: int = -1) -> list:
    """[the k largest entries of operand along axis, their int32 indices] (a list, as
    JAX returns it)."""
    k = operator.index(k)
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    axis = shapes.canonicalize_axis(axis, np.ndim(operand))
    return list(top_k_p.bind(operand, k=k, axis=axis))


def _approx_k(operand, k: int, reduction_dimension: int, is_max_k: bool) -> list:
    """`approx_max_k` / `approx_min_k` as XLA computes them on CPU: exactly (the k
    largest/smallest along reduction_dimension, in order, with int32 indices). Staged as
    top_k equations, not JAX's single `approx_top_k` equation."""
    from didax._src.lax.lax import neg  # noqa: PLC0415 - lax.lax imports this module

    if not dtypes.is_inexact(np.result_type(operand)):
        raise ValueError("operand must be a floating type")
    dim = shapes.canonicalize_axis(reduction_dimension, np.ndim(operand))
    vals, idx = top_k(operand if is_max_k else neg(operand), k, axis=dim)
    return [vals if is_max_k else neg(vals), idx]


def approx_max_k(operand, k: int, reduction_dimension: int = -1,
                 recall_target: float = 0.95, reduction_input_size_override: int = -1,
                 aggregate_to_topk: bool = True) -> list:
    del recall_target, reduction_input_size_override, aggregate_to_topk
    return _approx_k(operand, k, reduction_dimension, True)


def approx_min_k(operand, k: int, reduction_dimension: int = -1,
                 recall_target: float = 0.95, reduction_input_size_override: int = -1,
                 aggregate_to_topk: bool = True) -> list:
    del recall_target, reduction_input_size_override, aggregate_to_topk
    return _approx_k(operand, k, reduction_dimension, False)


# ----------------------------------------------------------------------------------------
# Shape helpers
# ----------------------------------------------------------------------------------------


def broadcast_shapes(*shapes_: tuple[int, ...]) -> tuple[int, ...]:
    """The shape all of shapes_ broadcast to (NumPy rules); ValueError when none."""
    shapes_ = [tuple(operator.index(d) for d in s) for s in shapes_]
    if not shapes_:
        return ()
    rank = max(len(s) for s in shapes_)
    padded = [(1,) * (rank - len(s)) + s for s in shapes_]
    out = []
    for dims in zip(*padded):
        sizes = {d for d in dims if d != 1}
        if len(sizes) > 1:
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={list(shapes_)}")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def collapse(operand, start_dimension: int, stop_dimension: int | None = None):
    """Merges dimensions [start_dimension, stop_dimension) into one (a reshape)."""
    shape = np.shape(operand)
    lo = shapes.canonicalize_axis(start_dimension, len(shape) + 1) \
        if start_dimension != len(shape) else start_dimension
    hi = len(shape) if stop_dimension is None else (
        stop_dimension if stop_dimension >= 0 else stop_dimension + len(shape))
    size = int(np.prod(shape[lo:hi], dtype=np.int64))
    return shapes.reshape(operand, (*shape[:lo], size, *shape[hi:]))


def batch_matmul(lhs, rhs, precision=None):
    """Matrix products over matching leading batch dimensions."""
    from didax._src.lax import reductions  # noqa: PLC0415

    if np.ndim(lhs) < 2 or np.ndim(rhs) < 2:
        raise ValueError(f"Arguments to batch_matmul must be at least 2D, got "
                         f"{np.ndim(lhs)}, {np.ndim(rhs)}")
    if np.ndim(lhs) != np.ndim(rhs):
        raise ValueError(f"Arguments to batch_matmul must have same ndim, got "
                         f"{np.ndim(lhs)}, {np.ndim(rhs)}")
    batch = tuple(range(np.ndim(lhs) - 2))
    dn = (((np.ndim(lhs) - 1,), (np.ndim(rhs) - 2,)), (batch, batch))
    return reductions.dot_general(lhs, rhs, dn, precision=precision)
