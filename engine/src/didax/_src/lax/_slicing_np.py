"""The static half of gather/scatter: dimension-number types, the out-of-bounds mode enum,
the abstract-evaluation shape rules (with JAX's error messages) and the eager NumPy
implementations, which follow XLA's CPU semantics (gather windows are clamped into range
unless the mode is FILL_OR_DROP; scatter windows that are not fully in range are dropped
unless the mode is CLIP).

Nothing here traces: it may import core, dtypes and NumPy only. `lax.slicing` declares the
primitives on top of it.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from didax._src import core, dtypes
from didax._src.core import ShapedArray


class GatherDimensionNumbers(NamedTuple):
    """XLA gather dimension numbers; the index vector is always the last indices axis."""

    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


class ScatterDimensionNumbers(NamedTuple):
    """XLA scatter dimension numbers; the index vector is always the last indices axis."""

    update_window_dims: tuple[int, ...]
    inserted_window_dims: tuple[int, ...]
    scatter_dims_to_operand_dims: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    scatter_indices_batching_dims: tuple[int, ...] = ()


class GatherScatterMode(enum.Enum):
    """What a gather/scatter does with indices whose window is not fully in range.

    CLIP clamps the window into range; FILL_OR_DROP fills gathered windows with a fill
    value and drops scattered ones; PROMISE_IN_BOUNDS promises they never occur (in
    practice gathers clamp and scatters drop, as XLA does)."""

    CLIP = enum.auto()
    FILL_OR_DROP = enum.auto()
    PROMISE_IN_BOUNDS = enum.auto()

    @staticmethod
    def from_any(s) -> GatherScatterMode:
        if isinstance(s, GatherScatterMode):
            return s
        if s == "clip":
            return GatherScatterMode.CLIP
        if s is None or s == "fill" or s == "drop":
            return GatherScatterMode.FILL_OR_DROP
        if s == "promise_in_bounds":
            return GatherScatterMode.PROMISE_IN_BOUNDS
        raise ValueError(f'Unknown gather mode "{s}"')


def _ints(xs) -> tuple[int, ...]:
    return tuple(int(x) for x in xs)


def canonical_gather_dnums(dn) -> GatherDimensionNumbers:
    return GatherDimensionNumbers(*[_ints(f) for f in dn])


def canonical_scatter_dnums(dn) -> ScatterDimensionNumbers:
    return ScatterDimensionNumbers(*[_ints(f) for f in dn])


def default_fill_value(dtype):
    """The fill of an out-of-range FILL_OR_DROP gather when none is given (JAX's)."""
    dtype = np.dtype(dtype)
    if dtypes.is_inexact(dtype):
        return np.nan
    if dtypes.is_signed(dtype):
        return int(np.iinfo(dtype).min)
    if dtypes.is_unsigned(dtype):
        return int(np.iinfo(dtype).max)
    if dtype == np.bool_:
        return True
    raise ValueError(f"Unsupported dtype for gather fill_value {dtype}")


# ----------------------------------------------------------------------------------------
# Shape rules
# ----------------------------------------------------------------------------------------


def _sorted(dims, op, name):
    if any(b < a for a, b in zip(dims, dims[1:])):
        raise TypeError(f"{name} in {op} op must be sorted; got {dims}")


def _unique(dims, op, name):
    if len(set(dims)) != len(dims):
        raise TypeError(f"{name} in {op} op must not repeat; got: {dims}.")


def _in_range(dims, rank, op, name):
    for d in dims:
        if d < 0 or d >= rank:
            raise TypeError(f"Invalid {name} set in {op} op; valid range is [0, {rank}); "
                            f"got: {d}.")


def _disjoint(a, b, op, name_a, name_b):
    if set(a) & set(b):
        raise TypeError(f"{name_a} and {name_b} in {op} op must be disjoint; got: {a} and "
                        f"{b}.")


def _sorted_in_range(dims, rank, op, name):
    """Sorted dims: reports the first one if negative, else the last one if too large."""
    bad = dims[0] if dims and dims[0] < 0 else dims[-1] if dims and dims[-1] >= rank else None
    if bad is not None:
        raise TypeError(f"Invalid {name} set in {op} op; valid range is [0, {rank}); "
                        f"got: {bad}.")


def _check_op_bdims(op, operand, op_bdims, other, other_name):
    _unique(op_bdims, op, "operand_batching_dims")
    _sorted(op_bdims, op, "operand_batching_dims")
    _sorted_in_range(op_bdims, operand.ndim, op, "operand_batching_dims")
    for dims, name in zip(other, other_name):
        _disjoint(dims, op_bdims, op, name, "operand_batching_dims")


def _check_idx_bdims(op, operand, indices, op_bdims, idx_bdims, idx_name):
    """The indices batching-dimension checks shared by gather and scatter; returns the
    batch shape."""
    Op = op.capitalize()
    _unique(idx_bdims, op, idx_name)
    _in_range(idx_bdims, indices.ndim, op, idx_name)
    if indices.ndim - 1 in idx_bdims:
        raise TypeError(f"{Op} op cannot have the index vector dimension as a batching "
                        f"dimension; got {idx_bdims}.")
    if len(op_bdims) != len(idx_bdims):
        sep = " " if op == "scatter" else ""
        raise TypeError(f"{Op} op requires equal numbers of operand_batching_dims and "
                        f"{idx_name}, got {op_bdims} and{sep}{idx_bdims}.")
    op_shape = tuple(operand.shape[i] for i in op_bdims)
    idx_shape = tuple(indices.shape[i] for i in idx_bdims)
    if op_shape != idx_shape:
        raise TypeError(f"{Op} op requires operand batching dimensions and indices batching "
                        f"dimensions to have the same shape, got {op_shape} and "
                        f"{idx_shape}.")
    return op_shape


def _check_indices_dtype(indices):
    if not dtypes.is_int(indices.dtype):
        raise ValueError("indices must have an integer type")


def gather_abstract_eval(operand, indices, *, dimension_numbers, slice_sizes,
                         unique_indices, indices_are_sorted, mode, fill_value):
    _check_indices_dtype(indices)
    dn = dimension_numbers
    if indices.ndim < 1:
        raise TypeError(f"Gather index leaf dimension must be within [0, rank(indices) + 1). "
                        f"rank(indices) is {indices.ndim} and gather index leaf dimension is "
                        f"{indices.ndim - 1}.")
    _check_gather_dims(operand, indices, dn)
    _check_gather_slice_sizes(operand, indices, dn, slice_sizes)
    shape = gather_output_shape(indices.shape, dn, slice_sizes)
    return ShapedArray(shape, operand.dtype, operand.weak_type)


def _check_gather_dims(operand, indices, dn):
    offset, collapsed, sim = dn.offset_dims, dn.collapsed_slice_dims, dn.start_index_map
    _sorted(offset, "gather", "offset_dims")
    _unique(offset, "gather", "offset_dims")
    out_rank = len(offset) + indices.ndim - 1
    for i, d in enumerate(offset):
        if d < 0 or d >= out_rank:
            raise TypeError(f"Offset dimension {i} in gather op is out of bounds; got {d}, "
                            f"but should have been in [0, {out_rank})")
    ivd = indices.ndim - 1
    if len(sim) != indices.shape[ivd]:
        raise TypeError(f"Gather op has {len(sim)} elements in start_index_map and the bound "
                        f"of dimension index_vector_dim={ivd} of indices is "
                        f"{indices.shape[ivd]}. These two numbers must be equal.")
    for i, d in enumerate(sim):
        if d < 0 or d >= operand.ndim:
            raise TypeError(f"Invalid start_index_map; domain is [0, {operand.ndim}), got: "
                            f"{i}->{d}.")
    _unique(sim, "gather", "start_index_map")
    _sorted(collapsed, "gather", "collapsed_slice_dims")
    _sorted_in_range(collapsed, operand.ndim, "gather", "collapsed_slice_dims")
    _unique(collapsed, "gather", "collapsed_slice_dims")
    _check_op_bdims("gather", operand, dn.operand_batching_dims, (collapsed, sim),
                    ("collapsed_slice_dims", "start_index_map"))
    _check_idx_bdims("gather", operand, indices, dn.operand_batching_dims,
                     dn.start_indices_batching_dims, "start_indices_batching_dims")


def _check_gather_slice_sizes(operand, indices, dn, slice_sizes):
    if operand.ndim != len(slice_sizes):
        raise TypeError(f"Gather op must have one slice size for every input dimension; got: "
                        f"len(slice_sizes)={len(slice_sizes)}, input_shape.rank="
                        f"{operand.ndim}")
    n_dims = len(dn.offset_dims) + len(dn.collapsed_slice_dims) + \
        len(dn.operand_batching_dims)
    if len(slice_sizes) != n_dims:
        raise TypeError(f"All components of the offset index in a gather op must either be a "
                        f"offset dimension or explicitly collapsed/batching; got "
                        f"len(slice_sizes)={len(slice_sizes)}, output_slice_sizes="
                        f"{dn.offset_dims}, collapsed_slice_dims={dn.collapsed_slice_dims}, "
                        f"operand_batching_dims={dn.operand_batching_dims}.")
    nonempty = core._prod(indices.shape) != 0
    for i, (s, d) in enumerate(zip(slice_sizes, operand.shape)):
        if nonempty and not 0 <= s <= d:
            raise TypeError(f"Slice size at index {i} in gather op is out of range, must be "
                            f"within [0, {d} + 1), got {s}.")
    for i, d in enumerate(dn.collapsed_slice_dims):
        if slice_sizes[d] != 1:
            raise TypeError(f"Gather op can only collapse slice dims with bound 1, but bound "
                            f"is {slice_sizes[d]} for index {d} at position {i}.")
    for i, d in enumerate(dn.operand_batching_dims):
        if slice_sizes[d] > 1:
            raise TypeError(f"Gather op can only have operand batching dims with bound 0/1, "
                            f"but bound is {slice_sizes[d]} for index {d} at position {i}.")


def gather_output_shape(indices_shape, dn, slice_sizes) -> tuple[int, ...]:
    batch = iter(indices_shape[:-1])
    dropped = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
    window = iter(s for i, s in enumerate(slice_sizes) if i not in dropped)
    rank = len(dn.offset_dims) + len(indices_shape) - 1
    return tuple(next(window) if i in dn.offset_dims else next(batch) for i in range(rank))


def scatter_abstract_eval(operand, indices, updates, *, update_jaxpr, update_consts,
                          dimension_numbers, indices_are_sorted, unique_indices, mode):
    _check_indices_dtype(indices)
    if operand.dtype != updates.dtype:
        raise TypeError(f"lax.scatter requires arguments to have the same dtypes, got "
                        f"{operand.dtype.name}, {updates.dtype.name}.")
    dn = dimension_numbers
    if indices.ndim < 1:
        raise TypeError(f"Scatter index leaf dimension must be within [0, rank(indices) + 1)."
                        f" rank(indices) is {indices.ndim} and scatter index leaf dimension "
                        f"is {indices.ndim - 1}.")
    expected = indices.ndim - 1 + len(dn.update_window_dims)
    if updates.ndim != expected:
        raise TypeError(f"Updates tensor must be of rank {expected}; got {updates.ndim}.")
    _check_scatter_dims(operand, indices, updates, dn)
    _check_scatter_bounds(operand, indices, updates, dn)
    return ShapedArray(operand.shape, operand.dtype, operand.weak_type)


def _check_scatter_dims(operand, indices, updates, dn):
    uwd, iwd, sdod = dn.update_window_dims, dn.inserted_window_dims, \
        dn.scatter_dims_to_operand_dims
    _sorted(uwd, "scatter", "update_window_dims")
    _unique(uwd, "scatter", "update_window_dims")
    _sorted_in_range(uwd, updates.ndim, "scatter", "update_window_dims")
    _sorted(iwd, "scatter", "inserted_window_dims")
    _unique(iwd, "scatter", "inserted_window_dims")
    _sorted_in_range(iwd, operand.ndim, "scatter", "inserted_window_dims")
    op_bdims = dn.operand_batching_dims
    _check_op_bdims("scatter", operand, op_bdims, (iwd, sdod),
                    ("inserted_window_dims", "scatter_dims_to_operand_dims"))
    batch_shape = _check_idx_bdims("scatter", operand, indices, op_bdims,
                                   dn.scatter_indices_batching_dims,
                                   "scatter_indices_batching_dims")
    upd_scatter = [d for d in range(updates.ndim) if d not in uwd]
    upd_bshape = tuple(updates.shape[upd_scatter[i]] for i in dn.scatter_indices_batching_dims)
    if batch_shape != upd_bshape:
        raise TypeError(f"Scatter op requires operand batching dimensions and updates batching"
                        f" dimensions to have the same shape, got {batch_shape} and "
                        f"{upd_bshape}.")
    window = len(uwd) + len(iwd) + len(op_bdims)
    if operand.ndim != window:
        raise TypeError(f"Scatter op has window of size {window}; doesn't match operand of "
                        f"rank {operand.ndim}.")
    ivd = indices.ndim - 1
    if len(sdod) != indices.shape[ivd]:
        raise TypeError(f"Scatter op has {len(sdod)} elements in scatter_dims_to_operand_dims"
                        f" and the bound of dimension index_vector_dim={ivd} of indices is "
                        f"{indices.shape[ivd]}. These two numbers must be equal")
    for i, d in enumerate(sdod):
        if d < 0 or d >= operand.ndim:
            raise TypeError(f"Invalid scatter_dims_to_operand_dims mapping; domain is "
                            f"[0, {operand.ndim}), got: {i}->{d}.")
    _unique(sdod, "scatter", "scatter_dims_to_operand_dims")


def _check_scatter_bounds(operand, indices, updates, dn):
    dropped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    max_sizes = [d for i, d in enumerate(operand.shape) if i not in dropped]
    for i, ud in enumerate(dn.update_window_dims):
        if max_sizes[i] < updates.shape[ud]:
            raise TypeError(f"Bounds of the window dimensions of updates must not exceed the "
                            f"bounds of the corresponding dimensions of operand. For dimension "
                            f"{ud}, updates bound is {updates.shape[ud]}, operand bound is "
                            f"{max_sizes[i]}.")
    upd_scatter = [d for d in range(updates.ndim) if d not in dn.update_window_dims]
    for i, d in zip(upd_scatter, indices.shape[:-1]):
        if updates.shape[i] != d:
            raise TypeError(f"Bounds of the scatter dimensions of updates must be the same as "
                            f"the bounds of the corresponding dimensions of scatter indices. "
                            f"For scatter dimension {i}, updates bound is {updates.shape[i]}, "
                            f"indices bound is {d}.")


def scatter_window_sizes(operand_shape, updates_shape, dn) -> list[int]:
    """Per operand dimension, the size of one scattered window (= the gather slice size of
    the inverse gather)."""
    sizes, pos = [], 0
    for i in range(len(operand_shape)):
        if i in dn.inserted_window_dims or i in dn.operand_batching_dims:
            sizes.append(1)
        else:
            sizes.append(updates_shape[dn.update_window_dims[pos]])
            pos += 1
    return sizes


# ----------------------------------------------------------------------------------------
# NumPy evaluation
# ----------------------------------------------------------------------------------------


def _window_starts(operand_shape, indices, index_map, op_bdims, idx_bdims):
    """Per operand dimension, the start of each window: int64 arrays of indices.shape[:-1]."""
    bshape = indices.shape[:-1]
    starts = [np.zeros(bshape, np.int64) for _ in operand_shape]
    for k, d in enumerate(index_map):
        starts[d] = indices[..., k].astype(np.int64)
    for od, idim in zip(op_bdims, idx_bdims):
        view = [1] * len(bshape)
        view[idim] = bshape[idim]
        starts[od] = np.broadcast_to(np.arange(bshape[idim]).reshape(view), bshape)
    return starts


def _in_bounds(starts, operand_shape, sizes, index_map):
    ok = np.ones(starts[0].shape if starts else (), np.bool_)
    for d in index_map:
        ok &= (starts[d] >= 0) & (starts[d] <= operand_shape[d] - sizes[d])
    return ok


def _window_index(starts, sizes, nbatch):
    """Broadcastable index arrays of shape batch + sizes addressing every window element."""
    nd = len(sizes)
    out = []
    for d, (s, k) in enumerate(zip(starts, sizes)):
        view = [1] * nd
        view[d] = k
        out.append(s.reshape(s.shape + (1,) * nd) +
                   np.arange(k).reshape((1,) * nbatch + tuple(view)))
    return tuple(out)


def _clamp_starts(starts, operand_shape, sizes):
    return [np.clip(s, 0, max(d - k, 0)) for s, d, k in zip(starts, operand_shape, sizes)]


def gather_impl(operand, indices, *, dimension_numbers, slice_sizes, unique_indices,
                indices_are_sorted, mode, fill_value):
    dn = dimension_numbers
    out_shape = gather_output_shape(indices.shape, dn, slice_sizes)
    if core._prod(out_shape) == 0:
        return np.zeros(out_shape, operand.dtype)
    starts = _window_starts(operand.shape, indices, dn.start_index_map,
                            dn.operand_batching_dims, dn.start_indices_batching_dims)
    ok = _in_bounds(starts, operand.shape, slice_sizes, dn.start_index_map)
    starts = _clamp_starts(starts, operand.shape, slice_sizes)
    nb = indices.ndim - 1
    vals = operand[_window_index(starts, slice_sizes, nb)]
    dropped = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
    window = tuple(s for i, s in enumerate(slice_sizes) if i not in dropped)
    vals = vals.reshape(indices.shape[:-1] + window)
    if mode == GatherScatterMode.FILL_OR_DROP:
        fill = default_fill_value(operand.dtype) if fill_value is None else fill_value
        vals = np.where(ok.reshape(ok.shape + (1,) * len(window)), vals,
                        np.asarray(fill).astype(operand.dtype))
    batch_axes, window_axes = iter(range(nb)), iter(range(nb, nb + len(window)))
    perm = [next(window_axes) if i in dn.offset_dims else next(batch_axes)
            for i in range(len(out_shape))]
    return np.transpose(vals, perm)


_UFUNCS: dict[str, Callable] = {
    "scatter-add": np.add.at, "scatter-sub": np.subtract.at, "scatter-mul": np.multiply.at,
    "scatter-min": np.minimum.at, "scatter-max": np.maximum.at,
}


def scatter_impl(kind: str, operand, indices, updates, *, update_jaxpr, update_consts,
                 dimension_numbers, indices_are_sorted, unique_indices, mode):
    """Eager scatter of kind 'scatter' / 'scatter-add' / ... with XLA's drop semantics."""
    dn = dimension_numbers
    out = np.array(operand, copy=True)
    if updates.size == 0 or out.size == 0:
        return out
    sizes = scatter_window_sizes(operand.shape, updates.shape, dn)
    starts = _window_starts(operand.shape, indices, dn.scatter_dims_to_operand_dims,
                            dn.operand_batching_dims, dn.scatter_indices_batching_dims)
    if mode == GatherScatterMode.CLIP:
        starts = _clamp_starts(starts, operand.shape, sizes)
    ok = _in_bounds(starts, operand.shape, sizes, dn.scatter_dims_to_operand_dims)
    starts = _clamp_starts(starts, operand.shape, sizes)
    nb = indices.ndim - 1
    scatter_axes = [d for d in range(updates.ndim) if d not in dn.update_window_dims]
    upd = np.transpose(updates, scatter_axes + list(dn.update_window_dims))
    upd = upd.reshape(indices.shape[:-1] + tuple(sizes))
    full = tuple(np.broadcast_to(i, upd.shape)[ok] for i in _window_index(starts, sizes, nb))
    upd = upd[ok]
    if kind == "scatter" and update_jaxpr is None:
        out[full] = upd
    elif kind == "scatter":
        _apply_in_rounds(out, full, upd, update_jaxpr, update_consts)
    else:
        _UFUNCS[kind](out, full, upd)
    return out


def _apply_in_rounds(out, index, upd, update_jaxpr, update_consts):
    """out[index] = f(out[index], upd) element by element in order, vectorized over the
    k-th occurrence of each target (so repeated targets see earlier results)."""
    flat = np.ravel_multi_index(tuple(i.ravel() for i in index), out.shape)
    upd = upd.ravel()
    order = np.argsort(flat, kind="stable")
    sorted_t = flat[order]
    first = np.r_[0, np.flatnonzero(np.diff(sorted_t)) + 1]
    group_start = np.repeat(first, np.diff(np.r_[first, len(sorted_t)]))
    rank = np.empty_like(flat)
    rank[order] = np.arange(len(flat)) - group_start
    view = out.reshape(-1)
    for r in range(int(rank.max()) + 1 if len(rank) else 0):
        sel = rank == r
        t = flat[sel]
        (new,) = core.eval_jaxpr(update_jaxpr, update_consts, view[t], upd[sel])
        view[t] = np.asarray(new)


def bitcast_shape(shape: Sequence[int], old, new) -> tuple[int, ...]:
    """The shape of bitcasting an array of `shape` from dtype old to new (JAX's rule)."""
    old_bits, new_bits = dtypes.itemsize_bits(old), dtypes.itemsize_bits(new)
    if old_bits == new_bits:
        return tuple(shape)
    if old_bits > new_bits:
        return (*shape, old_bits // new_bits)
    dim = shape[-1] if shape else 1
    if dim * old_bits != new_bits:
        raise ValueError(f"Attempting to convert array of shape {tuple(shape)} from "
                         f"{np.dtype(old)} of size {old_bits} bits to {np.dtype(new)} of size "
                         f"{new_bits}, bits but {dim} * {old_bits} != {new_bits}")
    return tuple(shape[:-1])
