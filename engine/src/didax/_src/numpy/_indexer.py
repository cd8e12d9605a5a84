"""Planning NumPy-style indexing: parses an index (ints, slices, None, Ellipsis, integer
and boolean arrays, lists) against a shape and turns it into one of three plans, tried in
this order as JAX does — a static `slice` (+ rev/squeeze/expand_dims), a `dynamic_slice`
(scalar traced integers), or a `gather` whose dimension numbers follow NumPy's placement
of advanced-index axes. The scatter side of `.at[]` reuses the gather plan.

May import core, dtypes, errors, didax.lax and numpy.util.
"""

from __future__ import annotations

import enum
import operator
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from didax._src import core, dtypes
from didax._src.array import Array
from didax._src.core import Tracer
from didax._src.errors import NonConcreteBooleanIndexError
from didax._src.lax import lax, shapes
from didax._src.lax.slicing import GatherDimensionNumbers, GatherScatterMode


class Kind(enum.Enum):
    NONE = "none"
    SLICE = "slice"
    ELLIPSIS = "ellipsis"
    INTEGER = "integer"
    BOOLEAN = "boolean"
    ARRAY = "array"


class Item(NamedTuple):
    index: Any
    kind: Kind
    axes: tuple[int, ...]  # the operand axes this index consumes


def _is_int(i) -> bool:
    return isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_))


def _leaf_dtypes(seq):
    for e in seq:
        if isinstance(e, (list, tuple)):
            yield from _leaf_dtypes(e)
        else:
            yield e


def _is_bool_list(i) -> bool:
    return isinstance(i, list) and bool(i) and all(
        isinstance(e, (bool, np.bool_)) or (isinstance(e, np.ndarray) and e.ndim == 0 and
                                             e.dtype == np.bool_) for e in i)


def kind_of(i) -> Kind:
    if i is None:
        return Kind.NONE
    if i is Ellipsis:
        return Kind.ELLIPSIS
    if isinstance(i, slice):
        return Kind.SLICE
    if _is_int(i):
        return Kind.INTEGER
    if isinstance(i, (bool, np.bool_)) or _is_bool_list(i):
        return Kind.BOOLEAN
    if isinstance(i, (Array, Tracer, np.ndarray)):
        dt = i.dtype if isinstance(i, np.ndarray) else core.get_aval(i).dtype
        if dt == np.bool_:
            return Kind.BOOLEAN
        if dtypes.is_int(dt):
            return Kind.ARRAY
        raise TypeError(f"Indexer must have integer or boolean type, got indexer with type "
                        f"{dt}")
    if isinstance(i, str):
        raise TypeError(f"JAX does not support string indexing; got idx={i!r}")
    if isinstance(i, Sequence):
        return _sequence_kind(i)
    if isinstance(i, (float, complex, np.generic)):
        raise TypeError(f"Indexer must have integer or boolean type, got indexer with type "
                        f"{np.dtype(type(i))}")
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), newaxis (`None`) and "
                     f"integer or boolean arrays are valid indices. Got {i}")


def _sequence_kind(seq) -> Kind:
    if not seq:
        return Kind.ARRAY
    dt = dtypes.result_type(*_leaf_dtypes(seq))
    if dt == np.bool_:
        return Kind.BOOLEAN
    if dtypes.is_int(dt):
        return Kind.ARRAY
    raise TypeError(f"Indexer must have integer or boolean type, got indexer with type "
                    f"{dtypes.canonicalize_dtype(dt)}")


def _unpack_list_would_differ(x) -> bool:
    return (isinstance(x, (np.ndarray, Array, Tracer)) and np.ndim(x) != 0 or
            isinstance(x, (Sequence, slice)) or x is Ellipsis or x is None)


def as_tuple(idx) -> tuple:
    """The index as a tuple; a bare non-tuple sequence is an error, as in JAX."""
    if isinstance(idx, tuple):
        return idx
    if isinstance(idx, Sequence) and not isinstance(idx, (Array, np.ndarray, str)):
        how = "tuple" if any(_unpack_list_would_differ(i) for i in idx) else "array"
        raise TypeError("Using a non-tuple sequence for multidimensional indexing is not "
                        f"allowed; use `arr[{how}(seq)]` instead of `arr[seq]`. See "
                        "https://github.com/jax-ml/jax/issues/4564 for more information.")
    return (idx,)


def parse(idx, shape: Sequence[int]) -> list[Item]:
    idx = as_tuple(idx)
    kinds = [kind_of(i) for i in idx]
    consumed = [0 if k in (Kind.NONE, Kind.ELLIPSIS) else
                np.ndim(i) if k == Kind.BOOLEAN else 1 for i, k in zip(idx, kinds)]
    ellipses = [n for n, k in enumerate(kinds) if k == Kind.ELLIPSIS]
    if len(ellipses) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    total = sum(consumed)
    if total > len(shape):
        raise IndexError(f"Too many indices: array is {len(shape)}-dimensional, but {total} "
                         "were indexed")
    if ellipses:
        consumed[ellipses[0]] = len(shape) - total
    items, axis = [], 0
    for i, k, n in zip(idx, kinds, consumed):
        items.append(Item(i, k, tuple(range(axis, axis + n))))
        axis += n
    return items


def expand_ellipsis(items: list[Item], ndim: int) -> list[Item]:
    """Ellipsis and the implicit trailing `:`s as explicit full slices."""
    out, used = [], 0
    for it in items:
        used += len(it.axes)
        if it.kind == Kind.ELLIPSIS:
            out.extend(Item(slice(None), Kind.SLICE, (a,)) for a in it.axes)
        else:
            out.append(it)
    out.extend(Item(slice(None), Kind.SLICE, (a,)) for a in range(used, ndim))
    return out


def check_static_ints(items, shape, normalize: bool = True) -> None:
    for it in items:
        if it.kind == Kind.INTEGER:
            i, (axis,) = operator.index(it.index), it.axes
            size = shape[axis]
            if not 0 <= (i + size if normalize and i < 0 else i) < size:
                raise IndexError(f"index {i} out of bounds for axis {axis} with size {size} "
                                 f"(normalize_indices={normalize})")


def check_static_slices(items) -> None:
    for pos, it in enumerate(items):
        if it.kind == Kind.SLICE:
            for v in (it.index.start, it.index.stop, it.index.step):
                if isinstance(v, Tracer) and core.concrete_value_of(v) is None:
                    raise IndexError("Slice entries must be static integers. Got "
                                     f"{it.index} at position {pos}")


def reversed_slice(start: int, stop: int, stride: int, size: int) -> tuple[int, int]:
    """(first, limit) of the ascending slice holding the elements of a negative-stride
    slice (JAX's formula, so empty slices get the same parameters)."""
    first = min(size, stop + 1 + abs(start - stop - 1) % abs(stride))
    return first, max(first, start + 1)


# ----------------------------------------------------------------------------------------
# Static and dynamic slice plans
# ----------------------------------------------------------------------------------------


class SlicePlan(NamedTuple):
    starts: list  # ints (static plan) or scalar index values (dynamic plan)
    sizes: list[int]  # limits (static) or slice sizes (dynamic)
    strides: tuple[int, ...] | None
    rev_axes: list[int]
    squeeze_axes: list[int]
    newaxis_dims: list[int]


def static_slice_plan(items, shape, mode, normalize: bool = True) -> SlicePlan | None:
    """A plan of static slices, or None when some index is an array."""
    if mode not in (None, GatherScatterMode.PROMISE_IN_BOUNDS, GatherScatterMode.CLIP):
        return None
    if any(it.kind in (Kind.ARRAY, Kind.BOOLEAN) for it in items):
        return None
    if mode != GatherScatterMode.CLIP:
        try:
            check_static_ints(items, shape, normalize)
        except IndexError:  # out of bounds: a clamping dynamic_slice, as in JAX
            return None
    starts, limits, strides, rev, squeeze, new = [], [], [], [], [], []
    for it in expand_ellipsis(items, len(shape)):
        if it.kind == Kind.NONE:
            new.append(len(starts) - len(squeeze) + len(new))
            continue
        (axis,) = it.axes
        size = shape[axis]
        if it.kind == Kind.INTEGER:
            if size == 0:
                raise IndexError(f"index is out of bounds for axis {axis} with size 0")
            i = int(it.index)
            i = min(max(i + size if normalize and i < 0 else i, 0), size - 1)
            starts.append(i), limits.append(i + 1), strides.append(1), squeeze.append(axis)
            continue
        start, stop, stride = it.index.indices(size)
        if stride < 0:
            first, limit = reversed_slice(start, stop, stride, size)
            starts.append(first), limits.append(limit), strides.append(-stride)
            rev.append(axis)
        else:
            starts.append(start), limits.append(max(start, stop)), strides.append(stride)
    st = None if all(s == 1 for s in strides) else tuple(strides)
    return SlicePlan(starts, limits, st, rev, squeeze, new)


def _dynamic_ok(it) -> bool:
    if it.kind in (Kind.INTEGER, Kind.ELLIPSIS, Kind.NONE):
        return True
    if it.kind == Kind.SLICE:
        return it.index.step in (None, 1, -1)
    return it.kind == Kind.ARRAY and not isinstance(it.index, Sequence) and \
        np.ndim(it.index) == 0


def dynamic_slice_plan(items, shape, mode) -> SlicePlan | None:
    """A dynamic_slice plan (scalar integer indices, unit-stride slices), or None."""
    if mode not in (None, GatherScatterMode.PROMISE_IN_BOUNDS, GatherScatterMode.CLIP):
        return None
    if not all(_dynamic_ok(it) for it in items):
        return None
    starts, sizes, rev, squeeze, new = [], [], [], [], []
    for it in expand_ellipsis(items, len(shape)):
        if it.kind == Kind.NONE:
            new.append(len(starts) - len(squeeze) + len(new))
            continue
        (axis,) = it.axes
        if it.kind == Kind.SLICE:
            start, stop, stride = it.index.indices(shape[axis])
            if stride < 0:
                first = stop + 1 + abs(start - stop - 1) % abs(stride)
                starts.append(first), sizes.append(max(0, start + 1 - first)), rev.append(axis)
            else:
                starts.append(start), sizes.append(max(0, stop - start))
            continue
        if shape[axis] == 0:
            raise IndexError(f"index is out of bounds for axis {axis} with size 0")
        starts.append(it.index), sizes.append(1), squeeze.append(axis)
    return SlicePlan(starts, sizes, None, rev, squeeze, new)


# ----------------------------------------------------------------------------------------
# Boolean indices
# ----------------------------------------------------------------------------------------


def expand_bool(items: list[Item], shape) -> list[Item]:
    """Boolean arrays become the integer arrays of their nonzero positions (they must be
    concrete); scalar booleans stay."""
    out = []
    for pos, it in enumerate(items):
        if it.kind != Kind.BOOLEAN:
            out.append(it)
            continue
        val = it.index
        if isinstance(val, Tracer):
            val = core.concrete_value_of(val)
            if val is None:
                raise NonConcreteBooleanIndexError(
                    f"Array boolean indices must be concrete; got "
                    f"{core.get_aval(it.index).str_short()}\n")
        val = np.asarray(val)
        if val.ndim == 0:
            out.append(Item(bool(val), Kind.BOOLEAN, ()))
            continue
        expected = [shape[a] for a in it.axes]
        if not all(s in (0, e) for s, e in zip(val.shape, expected)):
            raise IndexError(f"boolean index did not match shape of indexed array in index "
                             f"{pos}: got {val.shape}, expected {expected}")
        out.extend(Item(i, Kind.ARRAY, (a,)) for i, a in zip(np.nonzero(val), it.axes))
    return out


def expand_scalar_bools(items: list[Item], shape) -> tuple[list[Item], tuple, list[int]]:
    """Scalar booleans insert a size-1 axis indexed by arange(0) or arange(1). Returns the
    new items, the new shape and the positions of the inserted axes."""
    new_shape, out, axis, bool_dims = list(shape), [], 0, []
    for n, it in enumerate(items):
        if it.kind == Kind.BOOLEAN:
            new_shape.insert(n, 1)
            bool_dims.append(n)
            out.append(Item(np.arange(int(it.index)), Kind.ARRAY, (axis,)))
            axis += 1
        else:
            k = len(it.axes)
            out.append(Item(it.index, it.kind, tuple(range(axis, axis + k))))
            axis += k
    return out, tuple(new_shape), bool_dims


# ----------------------------------------------------------------------------------------
# Gather plan
# ----------------------------------------------------------------------------------------


class GatherPlan(NamedTuple):
    slice_shape: list[int]  # the shape of x[idx]
    slice_sizes: list[int]  # the gather's slice_sizes
    indices: Any  # the gather's start indices (index vector last)
    dnums: GatherDimensionNumbers
    unique: bool  # no advanced index, so windows cannot repeat...
    sorted: bool  # ...and are in increasing order
    rev_dims: list[int]  # output axes of negative-stride slices, reversed after the gather
    newaxis_dims: list[int]  # output axes created by None
    scalar_bool_dims: list[int]  # operand axes inserted for scalar boolean indices


def index_dtype(shape) -> np.dtype:
    return np.dtype(np.int64) if any(d >= 2**31 for d in shape) else np.dtype(np.int32)


def _as_index_array(i):
    if isinstance(i, Sequence):
        from didax._src.numpy.lax_numpy import asarray  # noqa: PLC0415 - avoids a cycle

        return asarray(i)
    return i


def _normalize(it: Item, size: int) -> Item:
    """Negative indices count from the end (JAX's `lt`/`add`/`select_n` on arrays)."""
    i = it.index
    if it.kind == Kind.INTEGER:
        if not isinstance(i, np.unsignedinteger) and i < 0:
            i = i + size
        return Item(i, it.kind, it.axes)
    dt = core.get_aval(i).dtype
    if dtypes.is_unsigned(dt):
        return it
    neg = i < 0
    shifted = lax.add(i, np.array(size, dt)[()])
    return Item(lax.select(neg, shifted, i), it.kind, it.axes)


def _to_dtype(i, dt):
    if isinstance(i, (int, np.integer)):
        return np.array(i, dt)[()]
    return lax.convert_element_type(i, dt)


def gather_plan(items: list[Item], shape, normalize: bool = True) -> GatherPlan:
    items = [Item(_as_index_array(it.index), it.kind, it.axes) if it.kind == Kind.ARRAY
             else it for it in items]
    adv_pos = [n for n, it in enumerate(items) if it.kind in (Kind.ARRAY, Kind.INTEGER)]
    contiguous = all(b - a == 1 for a, b in zip(adv_pos, adv_pos[1:]))
    items = expand_ellipsis(items, len(shape))
    items, shape, bool_dims = expand_scalar_bools(items, shape)
    if normalize:
        items = [_normalize(it, shape[it.axes[0]]) if it.kind in (Kind.ARRAY, Kind.INTEGER)
                 else it for it in items]
    advanced = []
    if any(it.kind == Kind.ARRAY and np.ndim(it.index) > 0 for it in items):
        real = [(n, it) for n, it in enumerate(items) if it.kind != Kind.NONE]
        advanced = [(n, j, it.index) for j, (n, it) in enumerate(real)
                    if it.kind in (Kind.ARRAY, Kind.INTEGER)]
    b = _PlanBuilder(shape, index_dtype(shape))
    adv_at = advanced[0][0] if contiguous and advanced else 0
    adv_idx = {n for n, _, _ in advanced}
    for n, it in enumerate(items):
        if advanced and n == adv_at:
            b.add_advanced(advanced)
        if n in adv_idx:
            b.x_axis += 1
            b.slice_sizes.append(1)
        else:
            b.add_basic(it)
    return b.finish(unique=not advanced, bool_dims=bool_dims)


class _PlanBuilder:
    """Accumulates a gather plan index by index (x_axis walks the operand, y_axis the
    output before collapsing, cy_axis the output after collapsing)."""

    def __init__(self, shape, dt):
        self.shape, self.dt = shape, dt
        self.x_axis = self.y_axis = self.cy_axis = 0
        self.offset_dims, self.collapsed, self.index_map = [], [], []
        self.indices, self.indices_shape = [], []  # (array, first output axis) pairs
        self.slice_shape, self.slice_sizes, self.newaxis, self.rev = [], [], [], []

    def add_advanced(self, advanced):
        from didax._src.numpy.util import broadcast_arrays  # noqa: PLC0415

        arrs = broadcast_arrays(*[a for _, _, a in advanced])
        bshape = list(np.shape(arrs[0]))
        first = len(self.indices_shape)
        self.indices.extend((lax.convert_element_type(a, self.dt), first) for a in arrs)
        self.indices_shape += bshape
        axes = [j for _, j, _ in advanced]
        self.index_map += axes
        self.collapsed += axes
        self.slice_shape += bshape
        self.y_axis += len(bshape)
        self.cy_axis += len(bshape)

    def add_basic(self, it: Item):
        if it.kind in (Kind.INTEGER, Kind.ARRAY):  # a scalar integer
            if self.shape[self.x_axis] == 0:
                raise IndexError(f"index is out of bounds for axis {self.x_axis} with size 0")
            self.indices.append((_to_dtype(it.index, self.dt), len(self.indices_shape)))
            self.collapsed.append(self.x_axis)
            self.slice_sizes.append(1)
            self.index_map.append(self.x_axis)
            self.x_axis += 1
        elif it.kind == Kind.NONE:
            self.slice_shape.append(1)
            self.newaxis.append(self.y_axis)
            self.y_axis += 1
        else:
            self.add_slice(it.index)

    def add_slice(self, slc: slice):
        size = self.shape[self.x_axis]
        start, stop, step = slc.indices(size)
        n = len(range(start, stop, step))
        self.slice_shape.append(n)
        if step == 1:
            if n != size:
                self.indices.append((_to_dtype(start, self.dt), len(self.indices_shape)))
                self.index_map.append(self.x_axis)
            self.slice_sizes.append(n)
            self.offset_dims.append(self.cy_axis)
        else:
            pos = lax.mul(np.array(step, self.dt)[()], shapes.iota(self.dt, n))
            pos = lax.add(np.array(start, self.dt)[()], pos)
            if step < 0:
                self.rev.append(self.cy_axis)
                pos = shapes.rev(pos, (0,))
            self.slice_sizes.append(1)
            self.indices.append((pos, len(self.indices_shape)))
            self.index_map.append(self.x_axis)
            self.indices_shape.append(n)
            self.collapsed.append(self.x_axis)
        self.cy_axis += 1
        self.y_axis += 1
        self.x_axis += 1

    def stacked_indices(self):
        if not self.indices:
            return np.zeros((0,), self.dt)
        if len(self.indices) == 1:
            g = self.indices[0][0]
            return shapes.expand_dims(g, (np.ndim(g),))
        full = (*self.indices_shape, 1)
        return shapes.concatenate(
            [shapes.broadcast_in_dim(g, full, tuple(range(i, i + np.ndim(g))))
             for g, i in self.indices], len(self.indices_shape))

    def finish(self, unique: bool, bool_dims) -> GatherPlan:
        dn = GatherDimensionNumbers(offset_dims=tuple(self.offset_dims),
                                    collapsed_slice_dims=tuple(sorted(self.collapsed)),
                                    start_index_map=tuple(self.index_map))
        return GatherPlan(self.slice_shape, self.slice_sizes, self.stacked_indices(), dn,
                          unique, unique, self.rev, self.newaxis, bool_dims)
