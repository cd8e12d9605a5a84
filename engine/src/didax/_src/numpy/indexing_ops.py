"""Functional indexing of didax.numpy built on lax.gather: take (fill/clip/wrap modes,
JAX's negative-index normalization), take_along_axis, choose, compress and extract.

May import core, dtypes, array, didax.lax (incl. lax.slicing) and numpy.util/
array_creation/manipulation.
"""

from __future__ import annotations

import numpy as np

from didax._src import core, dtypes
from didax._src.lax import lax, shapes, slicing
from didax._src.lax.slicing import GatherDimensionNumbers, GatherScatterMode
from didax._src.numpy.manipulation import ravel, reshape
from didax._src.numpy.util import (
    broadcast_to,
    canonicalize_axis,
    dtype_of,
    ensure_arraylike,
    jit_like_jax,
)


def _gather_mode(mode, name):
    if mode is None or mode == "fill":
        return GatherScatterMode.FILL_OR_DROP
    if mode == "raise":
        raise NotImplementedError(f"The 'raise' mode to jnp.{name} is not supported.")
    if mode in ("wrap", "clip", "promise_in_bounds"):
        return mode
    raise ValueError(f"Invalid mode '{mode}' for jnp.{name}")


def _prepare_indices(indices, n, mode):
    """Wrap mode takes indices modulo n; fill mode maps [-n, 0) to [0, n)."""
    zero = core.typed_scalar(0, dtype_of(indices))
    size = core.typed_scalar(n, dtype_of(indices))
    if mode == "wrap":
        from didax._src.numpy.ufuncs import remainder  # noqa: PLC0415

        return remainder(indices, size), GatherScatterMode.PROMISE_IN_BOUNDS
    if mode == "clip":
        return indices, GatherScatterMode.CLIP
    if mode == "promise_in_bounds":
        return indices, GatherScatterMode.PROMISE_IN_BOUNDS
    neg = lax.lt(indices, zero)
    return lax.select(neg, lax.add(indices, size), indices), mode


def take(a, indices, axis=None, out=None, mode=None, unique_indices=False,
         indices_are_sorted=False, fill_value=None):
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
    a, indices = ensure_arraylike("take", a, indices)
    if not (dtypes.is_int(dtype_of(indices)) or dtype_of(indices) == np.bool_):
        raise TypeError(f"take indices must be of integer type, got {dtype_of(indices)}")
    return _take(a, indices, axis, _gather_mode(mode, "take"), bool(unique_indices),
                 bool(indices_are_sorted), fill_value)


@jit_like_jax("_take", static_argnames=("axis", "mode", "unique_indices",
                                        "indices_are_sorted", "fill_value"))
def _take(a, indices, axis, mode, unique_indices, indices_are_sorted, fill_value):
    if axis is None:
        a, axis = ravel(a), 0
    axis = canonicalize_axis(axis, np.ndim(a))
    n = np.shape(a)[axis]
    if n == 0 and np.size(indices):
        raise IndexError("Cannot do a non-empty jnp.take() from an empty axis.")
    indices, gmode = _prepare_indices(indices, n, mode)
    k = np.ndim(indices)
    nd = np.ndim(a)
    sizes = list(np.shape(a))
    sizes[axis] = 1
    dn = GatherDimensionNumbers(
        offset_dims=tuple(range(axis)) + tuple(range(axis + k, nd + k - 1)),
        collapsed_slice_dims=(axis,), start_index_map=(axis,), operand_batching_dims=(),
        start_indices_batching_dims=())
    idx = shapes.expand_dims(indices, (k,))
    return slicing.gather(a, idx, dn, sizes, mode=gmode, fill_value=fill_value,
                          unique_indices=unique_indices,
                          indices_are_sorted=indices_are_sorted)


def take_along_axis(arr, indices, axis, mode=None, fill_value=None):
    arr, indices = ensure_arraylike("take_along_axis", arr, indices)
    if not dtypes.is_int(dtype_of(indices)):
        raise TypeError("take_along_axis indices must be of integer type, got "
                        f"{dtype_of(indices)}")
    if axis is None:
        if np.ndim(indices) != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        arr, axis = ravel(arr), 0
    axis = canonicalize_axis(axis, np.ndim(arr))
    if np.ndim(indices) != np.ndim(arr):
        raise ValueError("indices and arr must have the same number of dimensions; "
                         f"{np.ndim(indices)} vs. {np.ndim(arr)}")
    return _take_along_axis(arr, indices, axis, _gather_mode(mode, "take_along_axis"),
                            fill_value)


@jit_like_jax("take_along_axis", static_argnames=("axis", "mode", "fill_value"))
def _take_along_axis(arr, indices, axis, mode, fill_value):
    ashape, ishape = list(np.shape(arr)), list(np.shape(indices))
    common = [max(d1, d2) for i, (d1, d2) in enumerate(zip(ashape, ishape))]
    for i, (d1, d2) in enumerate(zip(ashape, ishape)):
        if i != axis and d1 != d2 and 1 not in (d1, d2):
            raise ValueError(f"index shape {tuple(ishape)} is not compatible with array "
                             f"shape {tuple(ashape)}")
    a_target = [common[i] if i != axis else ashape[i] for i in range(len(ashape))]
    i_target = [common[i] if i != axis else ishape[i] for i in range(len(ishape))]
    arr, indices = broadcast_to(arr, a_target), broadcast_to(indices, i_target)
    indices, gmode = _prepare_indices(indices, ashape[axis], mode)
    nd = len(ashape)
    others = tuple(d for d in range(nd) if d != axis)
    dn = GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(axis,),
                                start_index_map=(axis,), operand_batching_dims=others,
                                start_indices_batching_dims=others)
    idx = reshape(indices, (*np.shape(indices), 1))
    return slicing.gather(arr, idx, dn, (1,) * nd, mode=gmode, fill_value=fill_value)


def choose(a, choices, out=None, mode="raise"):
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.choose is not supported.")
    from didax._src.numpy.manipulation import broadcast_arrays, stack  # noqa: PLC0415
    from didax._src.numpy.ufuncs import remainder  # noqa: PLC0415

    a = ensure_arraylike("choose", a)
    n = len(choices)
    if mode == "raise":
        a = core.concrete_or_error(None, a, "The error occurred because jnp.choose was "
                                   "jit-compiled with mode='raise'. Use mode='wrap' or "
                                   "mode='clip' instead.")
        if np.any((np.asarray(a) < 0) | (np.asarray(a) >= n)):
            raise ValueError("invalid entry in choice array")
    elif mode == "wrap":
        a = remainder(a, core.typed_scalar(n, dtype_of(a)))
    elif mode == "clip":
        a = lax.clamp(core.typed_scalar(0, dtype_of(a)), a,
                      core.typed_scalar(n - 1, dtype_of(a)))
    else:
        raise ValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or 'clip'")
    a, *choices = broadcast_arrays(a, *choices)
    stacked = stack(choices)
    return reshape(take_along_axis(stacked, shapes.expand_dims(a, (0,)), 0), np.shape(a))


def compress(condition, a, axis=None, *, size=None, fill_value=0, out=None):
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.compress is not supported.")
    condition, a = ensure_arraylike("compress", condition, a)
    if np.ndim(condition) != 1:
        raise ValueError("condition must be a 1D array")
    if axis is None:
        a, axis = ravel(a), 0
    axis = canonicalize_axis(axis, np.ndim(a))
    n = np.shape(a)[axis]
    cond = lax.ne(condition, core.typed_scalar(0, dtype_of(condition))) if \
        dtype_of(condition) != np.bool_ else condition
    if np.shape(cond)[0] > n:
        cond = shapes.slice(cond, (0,), (n,))
    elif np.shape(cond)[0] < n:
        cond = shapes.pad(cond, False, ((0, n - np.shape(cond)[0], 0),))
    from didax._src.numpy.indexing import nonzero  # noqa: PLC0415

    (idx,) = nonzero(cond, size=size, fill_value=0)
    out = take(a, idx, axis=axis, mode="clip")
    if size is not None and np.size(out):
        valid = shapes.iota(np.int32, size)
        count = _count_true(cond)
        mask = lax.lt(valid, count)
        shp = [1] * np.ndim(out)
        shp[axis] = size
        from didax._src.numpy.util import where3  # noqa: PLC0415

        out = where3(reshape(mask, shp), out, fill_value)
    return out


def _count_true(cond):
    from didax._src.numpy.reductions import sum as _sum  # noqa: PLC0415

    return _sum(cond, dtype=np.int32)


def extract(condition, arr, *, size=None, fill_value=0):
    condition, arr = ensure_arraylike("extract", condition, arr)
    return compress(ravel(condition), ravel(arr), size=size, fill_value=fill_value)
