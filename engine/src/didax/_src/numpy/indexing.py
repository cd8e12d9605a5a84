"""NumPy indexing for didax arrays, as JAX does it: `x[idx]` (basic, advanced and mixed
indices, boolean masks with concrete values, negative-index normalization), the functional
updates `x.at[idx].set/add/subtract/multiply/divide/power/min/max/apply/get`, and the index
functions `nonzero`, `argwhere`, `flatnonzero`, `take`, `take_along_axis`, `put_along_axis`.

`x[idx]` tries a static `slice`, then a `dynamic_slice`, then a `gather` (the plans are made
by numpy._indexer); `.at[]` updates always scatter. May import core, dtypes, didax.lax and
the numpy modules below array_methods.
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Callable

import numpy as np

from didax._src import core, dtypes
from didax._src.config import config
from didax._src.lax import lax, reductions, shapes, slicing
from didax._src.lax.slicing import GatherScatterMode
from didax._src.numpy import _indexer as ix
from didax._src.numpy.util import (
    broadcast_to,
    canonicalize_axis,
    ensure_arraylike,
    jit_like_jax,
    promote_dtypes,
    where3,
)


def _asarray(x):
    from didax._src.numpy.lax_numpy import asarray  # noqa: PLC0415 - lax_numpy imports us

    return asarray(x)


def _mode(mode):
    return None if mode is None else GatherScatterMode.from_any(mode)


def getitem(arr, idx):
    """arr[idx]."""
    return rewriting_take(arr, idx)


def rewriting_take(arr, idx, *, indices_are_sorted=False, unique_indices=False, mode=None,
                   fill_value=None, normalize_indices=True):
    """arr[idx] as a static slice, a dynamic_slice or a gather, whichever applies first."""
    shape = np.shape(arr)
    items = ix.parse(idx, shape)
    parsed = _mode(mode)
    ix.check_static_slices(items)
    plan = ix.static_slice_plan(items, shape, parsed, normalize_indices)
    if plan is not None:
        return _static_slice(arr, plan, shape)
    plan = ix.dynamic_slice_plan(items, shape, parsed)
    if plan is not None:
        return _dynamic_slice(arr, plan, shape, normalize_indices)
    items = ix.expand_bool(items, shape)
    return _gather(arr, items, shape, indices_are_sorted=indices_are_sorted,
                   unique_indices=unique_indices, mode=parsed, fill_value=fill_value,
                   normalize=normalize_indices)


def _finish_slice(x, plan):
    if plan.rev_axes:
        x = shapes.rev(x, plan.rev_axes)
    if plan.squeeze_axes:
        x = shapes.squeeze(x, plan.squeeze_axes)
    if plan.newaxis_dims:
        x = shapes.expand_dims(x, plan.newaxis_dims)
    return x


def _static_slice(arr, plan, shape):
    trivial = plan.strides is None and len(plan.starts) == len(shape) and all(
        (s, lim) == (0, d) for s, lim, d in zip(plan.starts, plan.sizes, shape))
    x = arr if trivial else shapes.slice(arr, plan.starts, plan.sizes, plan.strides)
    return _finish_slice(x, plan)


def _normalize_start(i, size, normalize):
    """A dynamic_slice start index with negative values counted from the end."""
    if isinstance(i, (int, np.integer)):
        if i < 0 and not normalize:
            raise ValueError(f"Index {i} is out of bounds for dimension {size} if "
                             "allow_negative_indices=False")
        v = i + size if i < 0 else i
        return np.array(v, dtypes.canonicalize_dtype(dtypes.dtype(i)))[()]
    dt = core.get_aval(i).dtype
    if dtypes.is_unsigned(dt) or not normalize:
        return i
    neg = lax.lt(i, np.zeros((), dt)[()])
    shifted = lax.add(lax.convert_element_type(i, dt), np.array(size, dt)[()])
    return lax.select(neg, shifted, i)


def _dynamic_slice(arr, plan, shape, normalize):
    if not plan.squeeze_axes and all(
            isinstance(s, int) and s == 0 for s in plan.starts) and \
            list(plan.sizes) == list(shape):
        return _finish_slice(arr, plan)
    starts = list(plan.starts)
    if len(starts) > 1:
        dt = ix.index_dtype(shape)
        starts = [np.array(s, dt) if isinstance(s, (int, np.integer))
                  else lax.convert_element_type(s, dt) for s in starts]
    starts = [_normalize_start(s, d, normalize) for s, d in zip(starts, shape)]
    x = shapes.dynamic_slice_p.bind(arr, *starts, slice_sizes=tuple(plan.sizes))
    return _finish_slice(x, plan)


def _check_fill_value(fill_value):
    if fill_value is None:
        return None
    fill_value = core.concrete_or_error(None, fill_value,
                                        "fill_value argument to indexed get()")
    if np.ndim(fill_value) != 0:
        raise ValueError("fill_value argument to indexed get() must be a scalar")
    if isinstance(fill_value, np.ndarray) or hasattr(fill_value, "aval"):
        fill_value = np.asarray(fill_value).item()
    return fill_value


def _gather(arr, items, shape, *, indices_are_sorted, unique_indices, mode, fill_value,
            normalize):
    plan = ix.gather_plan(items, shape, normalize)
    fill_value = _check_fill_value(fill_value)
    y = arr
    if plan.scalar_bool_dims:
        y = shapes.expand_dims(y, plan.scalar_bool_dims)
    if core._prod(plan.slice_shape) == 0:
        return shapes.full(plan.slice_shape, 0, core.get_aval(arr).dtype)
    if core._prod(np.shape(plan.indices)) != 0:
        y = slicing.gather(y, plan.indices, plan.dnums, plan.slice_sizes,
                           unique_indices=unique_indices or plan.unique,
                           indices_are_sorted=indices_are_sorted or plan.sorted, mode=mode,
                           fill_value=fill_value)
    if plan.rev_dims:
        y = shapes.rev(y, plan.rev_dims)
    if plan.newaxis_dims:
        y = shapes.expand_dims(y, plan.newaxis_dims)
    return y


# ----------------------------------------------------------------------------------------
# Indexed updates
# ----------------------------------------------------------------------------------------


def _update_values(x, y):
    """y as JAX's indexed updates take it: a Python int fitting x's integer dtype takes that
    dtype; Python scalars otherwise stay weakly typed; anything else becomes an array."""
    dt = core.get_aval(x).dtype
    if type(y) is int and dtypes.is_int(dt) and np.iinfo(dt).min <= y <= np.iinfo(dt).max:
        return np.array(y, dt)[()]
    if type(y) in (int, float, complex, bool):
        return y
    return _asarray(y)


def scatter_update(x, idx, y, scatter_op: Callable, indices_are_sorted=False,
                   unique_indices=False, mode=None, normalize_indices=True):
    """The value of x after `x[idx] op= y`, computed with a scatter."""
    x = _asarray(x)
    y = _update_values(x, y)
    shape = np.shape(x)
    items = ix.expand_bool(ix.parse(idx, shape), shape)
    plan = ix.gather_plan(items, shape, normalize_indices)
    if core._prod(plan.slice_shape) == 0:
        return x
    aval = core.get_aval(x)
    if not dtypes.safe_to_cast(y, x):
        warnings.warn("scatter inputs have incompatible types: cannot safely cast value from "
                      f"dtype={core.get_aval(y).dtype} to dtype={aval.dtype} with "
                      f"jax_numpy_dtype_promotion={config.jax_numpy_dtype_promotion}. In "
                      "future JAX releases this will result in an error.", FutureWarning,
                      stacklevel=3)
    x, y = promote_dtypes(x, y)
    y = broadcast_to(y, tuple(plan.slice_shape))
    if plan.newaxis_dims:
        y = shapes.squeeze(y, plan.newaxis_dims)
    if plan.rev_dims:
        y = shapes.rev(y, plan.rev_dims)
    if plan.scalar_bool_dims:
        x = shapes.expand_dims(x, plan.scalar_bool_dims)
    dn = slicing._gather_to_scatter_dnums(plan.dnums)
    out = scatter_op(x, plan.indices, y, dn, indices_are_sorted=indices_are_sorted or
                     plan.sorted, unique_indices=unique_indices or plan.unique, mode=mode)
    if plan.scalar_bool_dims:
        out = shapes.squeeze(out, plan.scalar_bool_dims)
    return lax._convert_element_type(out, aval.dtype, aval.weak_type)


class IndexUpdateHelper:
    """`x.at` — `x.at[idx]` is an _IndexUpdateRef offering the functional updates."""

    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, idx):
        return _IndexUpdateRef(self.array, idx)

    def __repr__(self):
        return f"_IndexUpdateHelper({self.array!r})"


def _updater(op_name: str, doc: str):
    def method(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
               wrap_negative_indices=True):
        op = getattr(slicing, op_name)
        return scatter_update(self.array, self.index, values, op, indices_are_sorted,
                              unique_indices, mode, wrap_negative_indices)
    method.__doc__ = doc
    return method


def _ratio_updater(combine_name: str, doc: str):
    """x[idx] /= y and x[idx] **= y: scatter-multiply into ones, then combine with x."""
    def method(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
               wrap_negative_indices=True):
        from didax._src.numpy import ufuncs  # noqa: PLC0415

        ones = shapes.full_like(self.array, 1)
        factors = scatter_update(ones, self.index, values, slicing.scatter_mul,
                                 indices_are_sorted, unique_indices, mode,
                                 wrap_negative_indices)
        return getattr(ufuncs, combine_name)(self.array, factors)
    method.__doc__ = doc
    return method


class _IndexUpdateRef:
    """`x.at[idx]`: methods return updated copies of x (x itself never changes)."""

    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array, self.index = array, index

    def __repr__(self):
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(self, *, indices_are_sorted=False, unique_indices=False, mode=None,
            fill_value=None, wrap_negative_indices=True):
        """x[idx], with control of out-of-bound indices (mode, fill_value)."""
        return rewriting_take(self.array, self.index, indices_are_sorted=indices_are_sorted,
                              unique_indices=unique_indices, mode=mode, fill_value=fill_value,
                              normalize_indices=wrap_negative_indices)

    set = _updater("scatter", "x[idx] = y")
    add = _updater("scatter_add", "x[idx] += y")
    subtract = _updater("scatter_sub", "x[idx] -= y")
    multiply = _updater("scatter_mul", "x[idx] *= y")
    mul = multiply
    min = _updater("scatter_min", "x[idx] = minimum(x[idx], y)")
    max = _updater("scatter_max", "x[idx] = maximum(x[idx], y)")
    divide = _ratio_updater("divide", "x[idx] /= y")
    power = _ratio_updater("power", "x[idx] **= y")

    def apply(self, func, *, indices_are_sorted=False, unique_indices=False, mode=None,
              wrap_negative_indices=True):
        """x[idx] = func(x[idx]), applying func once per occurrence of a repeated index."""
        def op(x, indices, y, dn, **kw):
            return slicing.scatter_apply(x, indices, func, dn, update_shape=np.shape(y), **kw)
        zero = np.zeros((), core.get_aval(self.array).dtype)[()]
        return scatter_update(self.array, self.index, zero, op, indices_are_sorted,
                              unique_indices, mode, wrap_negative_indices)


# ----------------------------------------------------------------------------------------
# Index functions
# ----------------------------------------------------------------------------------------


def nonzero(a, *, size=None, fill_value=None):
    """The indices of the nonzero elements, one array per axis. Under transformations the
    number of results must be given as `size` (padded with fill_value, default 0)."""
    arr = _asarray(a)
    shape = np.shape(arr)
    if not shape:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use "
                         "jnp.atleast_1d(scalar).nonzero() instead.")
    dt = core.get_aval(arr).dtype
    mask = arr if dt == np.bool_ else lax.ne(arr, np.zeros((), dt)[()])
    count = reductions.reduce_sum(lax.convert_element_type(mask, dtypes.default_int_dtype()),
                                  tuple(range(len(shape))))
    n = count if size is None else size
    n = operator.index(core.concrete_or_error(
        operator.index, n, "The size argument of jnp.nonzero must be statically specified "
        "to use jnp.nonzero within JAX transformations."))
    int_dt = dtypes.default_int_dtype()
    if core._prod(shape) == 0 or n == 0:
        return tuple(shapes.full((n,), 0, int_dt) for _ in shape)
    flat = _nonzero_flat_positions(mask, n, int_dt)
    strides = [core._prod(shape[k + 1:]) for k in range(len(shape))]
    out = tuple(lax.rem(lax.div(flat, np.array(s, int_dt)[()]), np.array(d, int_dt)[()])
                for s, d in zip(strides, shape))
    if fill_value is not None:
        fills = fill_value if np.ndim(fill_value) else (fill_value,) * len(out)
        if any(np.shape(f) != () for f in fills):
            raise ValueError(f"fill_value must be a scalar or a tuple of length {len(out)}; "
                             f"got {fill_value}")
        past = lax.ge(shapes.iota(int_dt, n), lax.convert_element_type(count, int_dt))
        out = tuple(lax.select(past, shapes.full((n,), f, int_dt), o)
                    for f, o in zip(fills, out))
    return out


def _nonzero_flat_positions(mask, n, int_dt):
    """The flat positions of the first n true elements (the total size where there are
    fewer): counting, for each k < n, the elements whose inclusive running count of trues is
    at most k."""
    flat_mask = shapes.reshape(lax.convert_element_type(mask, int_dt), (mask_size(mask),))
    running = reductions.cumsum(flat_mask, 0)
    counts = slicing.scatter_add(
        shapes.full((n,), 0, int_dt), shapes.expand_dims(running, (1,)),
        shapes.full(np.shape(running), 1, int_dt),
        slicing.ScatterDimensionNumbers((), (0,), (0,)), mode=GatherScatterMode.FILL_OR_DROP)
    return reductions.cumsum(counts, 0)


def mask_size(x) -> int:
    return core._prod(np.shape(x))


def flatnonzero(a, *, size=None, fill_value=None):
    """Indices of the nonzero elements of a.ravel()."""
    arr = _asarray(a)
    return nonzero(shapes.reshape(arr, (mask_size(arr),)), size=size,
                   fill_value=fill_value)[0]


def argwhere(a, *, size=None, fill_value=None):
    """The nonzero indices as an (N, a.ndim) array."""
    arr = _asarray(a)
    scalar = np.ndim(arr) == 0
    cols = nonzero(shapes.reshape(arr, (1,)) if scalar else arr, size=size,
                   fill_value=fill_value)
    out = shapes.concatenate([shapes.expand_dims(c, (1,)) for c in cols], 1)
    if scalar:
        out = shapes.slice(out, (0, 0), (np.shape(out)[0], 0))
    return out


def take(a, indices, axis=None, out=None, mode=None, unique_indices=False,
         indices_are_sorted=False, fill_value=None):
    """Elements of a at indices along axis (of a.ravel() when axis is None). Out-of-bound
    indices fill (mode 'fill', the default), clip ('clip') or wrap ('wrap')."""
    return _take(a, indices, None if axis is None else operator.index(axis), out, mode,
                 unique_indices=unique_indices, indices_are_sorted=indices_are_sorted,
                 fill_value=fill_value)


@jit_like_jax("_take", static_argnames=("axis", "mode", "unique_indices",
                                        "indices_are_sorted", "fill_value"))
def _take(a, indices, axis=None, out=None, mode=None, unique_indices=False,
          indices_are_sorted=False, fill_value=None):
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
    a, indices = ensure_arraylike("take", a, indices)
    if axis is None:
        a = shapes.reshape(a, (mask_size(a),))
        axis = 0
    axis = canonicalize_axis(axis, np.ndim(a))
    size = np.shape(a)[axis]
    gmode, indices = _take_mode(mode, indices, size)
    sizes = list(np.shape(a))
    if size == 0:
        if mask_size(indices) != 0:
            raise IndexError("Cannot do a non-empty jnp.take() from an empty axis.")
        return a
    nidx = np.ndim(indices)
    if mask_size(indices) == 0:
        return shapes.full((*sizes[:axis], *np.shape(indices), *sizes[axis + 1:]), 0,
                           core.get_aval(a).dtype)
    sizes[axis] = 1
    offset = (*range(axis), *range(axis + nidx, len(sizes) + nidx - 1))
    dn = slicing.GatherDimensionNumbers(offset_dims=offset, collapsed_slice_dims=(axis,),
                                        start_index_map=(axis,))
    return slicing.gather(a, shapes.expand_dims(indices, (nidx,)), dn, tuple(sizes),
                          mode=gmode, unique_indices=unique_indices,
                          indices_are_sorted=indices_are_sorted, fill_value=fill_value)


def _take_mode(mode, indices, size):
    if mode is None or mode == "fill":
        return GatherScatterMode.FILL_OR_DROP, where3(indices < 0, indices + size, indices)
    if mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.take is not supported.")
    if mode == "wrap":
        from didax._src.numpy import ufuncs  # noqa: PLC0415

        dt = core.get_aval(indices).dtype
        return GatherScatterMode.PROMISE_IN_BOUNDS, ufuncs.remainder(
            indices, np.array(size, dt)[()])
    if mode == "clip":
        return GatherScatterMode.CLIP, indices
    raise ValueError(f"Invalid mode '{mode}' for np.take")


@jit_like_jax("take_along_axis", static_argnames=("axis", "mode", "fill_value"))
def take_along_axis(arr, indices, axis=-1, mode=None, fill_value=None):
    """out[..., j, ...] = arr[..., indices[..., j, ...], ...] along axis; other axes of
    indices broadcast against arr. Out-of-bound indices fill unless mode says otherwise."""
    a, indices = ensure_arraylike("take_along_axis", arr, indices)
    idx_dt = core.get_aval(indices).dtype
    if not dtypes.is_int(idx_dt):
        raise TypeError(f"take_along_axis indices must be of integer type, got {idx_dt}")
    if axis is None:
        if np.ndim(indices) != 1:
            raise ValueError(f"take_along_axis indices must be 1D if axis=None, got shape "
                             f"{np.shape(indices)}")
        a, axis = shapes.reshape(a, (mask_size(a),)), 0
    rank = np.ndim(a)
    if rank != np.ndim(indices):
        raise ValueError(f"indices and arr must have the same number of dimensions; "
                         f"{np.ndim(indices)} vs. {rank}")
    axis = canonicalize_axis(axis, rank)
    a_shape, idx_shape = np.shape(a), np.shape(indices)
    arr_shape = tuple(1 if d == axis else s for d, s in enumerate(a_shape))
    out_shape = tuple(np.broadcast_shapes(idx_shape, arr_shape))
    if a_shape[axis] == 0:
        return shapes.full(out_shape, 0, core.get_aval(a).dtype)
    wrap = mode != "promise_in_bounds"
    if wrap:
        dt = ix.index_dtype((a_shape[axis],))
        indices = lax.convert_element_type(indices, dt)
        neg = indices < 0
        indices = lax.select(neg, lax.add(indices, np.array(a_shape[axis], dt)[()]), indices)
    return _along_axis_gather(a, indices, axis, arr_shape, out_shape, mode, fill_value)


def _along_axis_gather(a, indices, axis, arr_shape, out_shape, mode, fill_value):
    """The gather of take_along_axis: index-broadcast axes take whole slices, matching
    axes become gather batching axes, size-1 operand axes are squeezed away."""
    idx_shape = np.shape(indices)
    keep = [i for i, s in enumerate(idx_shape) if i == axis or s != 1]
    indices = shapes.reshape(indices, (*[out_shape[i] for i in keep], 1))
    sizes, offset, op_b, idx_b, squeeze = [], [], [], [], []
    new_i = j = 0
    for i in range(len(arr_shape)):
        if i == axis:
            sizes.append(1)
            index_axis = new_i
            new_i, j = new_i + 1, j + 1
        elif idx_shape[i] == 1:
            offset.append(i)
            sizes.append(arr_shape[i])
            new_i += 1
        elif arr_shape[i] == 1:
            squeeze.append(i)
            j += 1
        else:
            sizes.append(0 if arr_shape[i] == 0 else 1)
            op_b.append(new_i)
            idx_b.append(j)
            new_i, j = new_i + 1, j + 1
    a = shapes.squeeze(a, squeeze)
    dn = slicing.GatherDimensionNumbers(tuple(offset), (index_axis,), (index_axis,),
                                        tuple(op_b), tuple(idx_b))
    return slicing.gather(a, indices, dn, tuple(sizes),
                          mode="fill" if mode is None else mode, fill_value=fill_value)


def put_along_axis(arr, indices, values, axis, inplace=True, *, mode=None):
    """A copy of arr with values put at indices along axis (JAX arrays are immutable, so
    inplace must be False)."""
    if inplace:
        raise ValueError("jax.numpy.put_along_axis cannot modify arrays in-place, because JAX "
                         "arraysare immutable. Pass inplace=False to instead return an "
                         "updated array.")
    arr, indices, values = ensure_arraylike("put_along_axis", arr, indices, values)
    original_shape = np.shape(arr)
    if axis is None:
        arr, axis_ = shapes.reshape(arr, (mask_size(arr),)), 0
    else:
        axis_ = axis
    if np.ndim(arr) != np.ndim(indices):
        raise ValueError("put_along_axis arguments 'arr' and 'indices' must have same ndim. "
                         f"Got arr.ndim={np.ndim(arr)} and indices.ndim={np.ndim(indices)}.")
    try:
        values = broadcast_to(values, np.shape(indices))
    except ValueError:
        raise ValueError("put_along_axis argument 'values' must be broadcastable to "
                         f"'indices'. Got values.shape={np.shape(values)} and "
                         f"indices.shape={np.shape(indices)}.") from None
    nd = np.ndim(arr)
    axis_ = canonicalize_axis(axis_, nd)
    grid = [shapes.broadcasted_iota(dtypes.default_int_dtype(),
                                    tuple(s if d == k else 1 for d, s in
                                          enumerate(np.shape(arr))), k) for k in range(nd)]
    grid[axis_] = indices
    result = _IndexUpdateRef(arr, tuple(grid)).set(values, mode=mode)
    return shapes.reshape(result, original_shape) if axis is None else result
