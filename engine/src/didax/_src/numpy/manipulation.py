"""Shape manipulation in didax.numpy: reshape/ravel, transpose/swapaxes/moveaxis/rollaxis,
squeeze/expand_dims/atleast_*d, broadcasting, concatenate/stack and their h/v/d/column
variants, block, append, split/array_split and variants, unstack, tile, repeat, resize,
flip/rot90/roll, delete/insert with static positions.

May import core, dtypes, array, didax.lax (incl. lax.stacking) and numpy.util/
array_creation.
"""

from __future__ import annotations

import builtins
import functools
import math
import operator

import numpy as np

from didax._src import core
from didax._src.array import Array
from didax._src.core import Tracer
from didax._src.lax import shapes, stacking
from didax._src.numpy.array_creation import array, asarray, zeros
from didax._src.numpy.util import (
    broadcast_shapes_checked,
    canonicalize_axis,
    check_arraylike,
    concrete_int,
    convert,
    ensure_arraylike,
    jit_like_jax,
    promote_dtypes,
    to_array,
)
from didax._src.numpy.util import (
    broadcast_to as _broadcast_to,
)


def _index_tuple(x) -> tuple[int, ...]:
    if isinstance(x, (tuple, list)):
        return tuple(operator.index(i) for i in x)
    return (operator.index(x),)


# ----------------------------------------------------------------------------------------
# Reshaping and axes
# ----------------------------------------------------------------------------------------


def _compute_newshape(arr_shape, newshape) -> tuple[int, ...]:
    size = math.prod(arr_shape)
    try:
        newshape = _index_tuple(newshape)
    except TypeError:
        raise TypeError(f"Shapes must be 1D sequences of concrete values of integer type, "
                        f"got {newshape}.") from None
    if newshape.count(-1) > 1:
        raise TypeError("can only specify one unknown axis size with a `-1` value, got "
                        f"{newshape}")
    if -1 in newshape:
        known = math.prod(d for d in newshape if d != -1)
        if known == 0 or size % known:
            raise TypeError(f"cannot reshape array of shape {tuple(arr_shape)} (size {size}) "
                            f"into shape {newshape} because the product of specified axis "
                            f"sizes ({known}) does not evenly divide {size}")
        newshape = tuple(size // known if d == -1 else d for d in newshape)
    if math.prod(newshape) != size or builtins.any(d < 0 for d in newshape):
        raise TypeError(f"cannot reshape array of shape {tuple(arr_shape)} (size {size}) into "
                        f"shape {newshape} (size {math.prod(newshape)})")
    return newshape


def reshape(a, shape=None, order="C", *, copy=None, out_sharding=None):
    if isinstance(a, np.ndarray) and shape is not None:
        np.reshape(a, shape)  # NumPy's errors for NumPy inputs, as jnp.reshape gives them
    a = ensure_arraylike("reshape", a)
    if shape is None:
        raise TypeError("jnp.reshape requires a shape argument")
    new = _compute_newshape(np.shape(a), shape)
    if order == "C":
        return shapes.reshape(a, new) if new != np.shape(a) else a
    if order == "F":
        nd = np.ndim(a)
        flat_f = shapes.reshape(a, new[::-1], tuple(range(nd))[::-1])
        return shapes.transpose(flat_f, tuple(range(len(new)))[::-1])
    if order == "A":
        raise NotImplementedError("np.reshape order=A is not implemented.")
    raise ValueError(f"Unexpected value for 'order' argument: {order}.")


def ravel(a, order="C", *, out_sharding=None):
    a = ensure_arraylike("ravel", a)
    if order == "K":
        raise NotImplementedError("Ravel not implemented for order='K'.")
    return reshape(a, (int(np.size(a)),), order)


def transpose(a, axes=None):
    a = ensure_arraylike("transpose", a)
    nd = np.ndim(a)
    axes = tuple(range(nd))[::-1] if axes is None else _index_tuple(axes)
    axes = tuple(a_ + nd if -nd <= a_ < 0 else a_ for a_ in axes)
    return shapes.transpose(a, axes)


permute_dims = transpose


def matrix_transpose(x, /):
    x = ensure_arraylike("matrix_transpose", x)
    nd = np.ndim(x)
    if nd < 2:
        raise ValueError(f"x must be at least two-dimensional for matrix_transpose; got "
                         f"ndim={nd}")
    perm = list(range(nd))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return shapes.transpose(x, tuple(perm))


def swapaxes(a, axis1, axis2):
    a = ensure_arraylike("swapaxes", a)
    perm = list(range(np.ndim(a)))
    i, j = canonicalize_axis(axis1, len(perm)), canonicalize_axis(axis2, len(perm))
    perm[i], perm[j] = perm[j], perm[i]
    return shapes.transpose(a, tuple(perm))


def moveaxis(a, source, destination):
    a = ensure_arraylike("moveaxis", a)
    perm = _moveaxis_perm(np.ndim(a), _index_tuple(source), _index_tuple(destination))
    return a if perm == tuple(range(len(perm))) else shapes.transpose(a, perm)


@functools.lru_cache(maxsize=1024)
def _moveaxis_perm(nd, source, destination):
    src = tuple(canonicalize_axis(s, nd) for s in source)
    dst = tuple(canonicalize_axis(d, nd) for d in destination)
    if len(src) != len(dst):
        raise ValueError("Inconsistent number of elements: "
                         f"{len(src)} vs {len(dst)}")
    perm = [i for i in range(nd) if i not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return tuple(perm)


def rollaxis(a, axis, start=0):
    a = ensure_arraylike("rollaxis", a)
    nd = np.ndim(a)
    axis = canonicalize_axis(axis, nd)
    if not -nd <= start <= nd:
        raise ValueError(f"start={start} must satisfy {-nd}<=start<={nd}")
    start = start + nd if start < 0 else start
    if start > axis:
        start -= 1
    return moveaxis(a, axis, start)


def squeeze(a, axis=None):
    a = ensure_arraylike("squeeze", a)
    shp = np.shape(a)
    if axis is None:
        axes = tuple(i for i, d in enumerate(shp) if d == 1)
    else:
        axes = tuple(canonicalize_axis(ax, len(shp)) for ax in _index_tuple(axis))
    return shapes.squeeze(a, axes) if axes else a


def expand_dims(a, axis):
    a = ensure_arraylike("expand_dims", a)
    axes = _index_tuple(axis)
    nd = np.ndim(a) + len(axes)
    canon = tuple(canonicalize_axis(ax, nd) for ax in axes)
    if len(set(canon)) != len(canon):
        raise ValueError(f"repeated axis in lax.expand_dims: {axes}")
    return shapes.expand_dims(a, canon)


def _atleast(name, fn, arys):
    check_arraylike(name, *arys)
    outs = [fn(a) for a in arys]
    return outs[0] if len(outs) == 1 else outs


@jit_like_jax("atleast_1d")
def _atleast_1d_one(a):
    return array(a, copy=False, ndmin=1)


@jit_like_jax("atleast_2d")
def _atleast_2d_one(a):
    return array(a, copy=False, ndmin=2)


@jit_like_jax("atleast_3d")
def _atleast_3d_one(a):
    a = to_array(a)
    nd = np.ndim(a)
    if nd == 0:
        return shapes.reshape(a, (1, 1, 1))
    if nd == 1:
        return shapes.expand_dims(a, (0, 2))
    if nd == 2:
        return shapes.expand_dims(a, (2,))
    return a


def atleast_1d(*arys):
    return _atleast("atleast_1d", _atleast_1d_one, arys)


def atleast_2d(*arys):
    return _atleast("atleast_2d", _atleast_2d_one, arys)


def atleast_3d(*arys):
    return _atleast("atleast_3d", _atleast_3d_one, arys)


# ----------------------------------------------------------------------------------------
# Broadcasting
# ----------------------------------------------------------------------------------------


def broadcast_shapes(*shps):
    if not shps:
        return ()
    return broadcast_shapes_checked(*[(s,) if isinstance(s, int) else tuple(s)
                                      for s in shps])


def broadcast_arrays(*args):
    args = ensure_arraylike("broadcast_arrays", *args) if len(args) > 1 else \
        [ensure_arraylike("broadcast_arrays", *args)] if args else []
    shps = [np.shape(a) for a in args]
    if not shps or builtins.all(s == shps[0] for s in shps):
        return list(args)
    shape = broadcast_shapes_checked(*shps)
    return [_broadcast_to(a, shape) for a in args]


def broadcast_to(array, shape, *, out_sharding=None):  # noqa: A002
    array = ensure_arraylike("broadcast_to", array)
    if not isinstance(shape, (tuple, list)) and np.ndim(shape) == 0:
        shape = (shape,)
    return _broadcast_to(array, _index_tuple(shape))


# ----------------------------------------------------------------------------------------
# Joining
# ----------------------------------------------------------------------------------------


def _as_list(arrays, name):
    if isinstance(arrays, (Array, Tracer, np.ndarray)):
        return None
    arrays = list(arrays)
    check_arraylike(name, *arrays)
    return [to_array(a) for a in arrays]


def concatenate(arrays, axis=0, dtype=None):
    lst = _as_list(arrays, "concatenate")
    if lst is None:
        arr = to_array(arrays)
        if axis is None:
            return ravel(arr)
        if np.ndim(arr) == 0:
            raise ValueError("Zero-dimensional arrays cannot be concatenated.")
        axis = canonicalize_axis(axis, np.ndim(arr) - 1)
        out = reshape(moveaxis(arr, 0, axis), (*np.shape(arr)[1:axis + 1], -1,
                                               *np.shape(arr)[axis + 2:]))
        return out if dtype is None else asarray(out, dtype)
    if not lst:
        raise ValueError("Need at least one array to concatenate.")
    if axis is None:
        return concatenate([ravel(a) for a in lst], 0, dtype)
    if np.ndim(lst[0]) == 0:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    axis = canonicalize_axis(axis, np.ndim(lst[0]))
    lst = promote_dtypes(*lst) if dtype is None else [asarray(a, dtype) for a in lst]
    return to_array(shapes.concatenate(lst, axis))


concat = concatenate


def stack(arrays, axis=0, out=None, dtype=None):
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.stack is not supported.")
    if not len(arrays):
        raise ValueError("Need at least one array to stack.")
    lst = _as_list(arrays, "stack")
    if lst is None:
        arr = to_array(arrays)
        axis = canonicalize_axis(axis, np.ndim(arr))
        return concatenate(expand_dims(arr, axis + 1), axis, dtype)
    lst = promote_dtypes(*lst) if dtype is None else [asarray(a, dtype) for a in lst]
    shp = np.shape(lst[0])
    if builtins.any(np.shape(a) != shp for a in lst):
        raise ValueError("All input arrays must have the same shape. Got "
                         f"{', '.join(str(np.shape(a)) for a in lst)}.")
    axis = canonicalize_axis(axis, len(shp) + 1)
    return stacking.stack(lst, axis)


def unstack(x, /, *, axis=0):
    x = ensure_arraylike("unstack", x)
    if np.ndim(x) == 0:
        raise ValueError("Unstack requires arrays with rank > 0, however a scalar array "
                         "was passed.")
    return stacking.unstack(x, canonicalize_axis(axis, np.ndim(x)))


def _stack_variant(name, conv, axis_of):
    def f(tup, dtype=None):
        lst = _as_list(tup, name)
        if lst is None:
            arr = to_array(tup)
            lst = [arr[i] for i in range(np.shape(arr)[0])]
        lst = [conv(a) for a in lst]
        return concatenate(lst, axis_of(lst), dtype)
    f.__name__ = f.__qualname__ = name
    return f


vstack = _stack_variant("vstack", _atleast_2d_one, lambda lst: 0)
hstack = _stack_variant("hstack", lambda a: atleast_1d(a),
                        lambda lst: 0 if np.ndim(lst[0]) == 1 else 1)
dstack = _stack_variant("dstack", lambda a: atleast_3d(a), lambda lst: 2)


def column_stack(tup):
    lst = _as_list(tup, "column_stack")
    if lst is None:
        arr = to_array(tup)
        lst = [arr[i] for i in range(np.shape(arr)[0])]
    lst = [transpose(_atleast_2d_one(a)) if np.ndim(a) < 2 else a for a in lst]
    return concatenate(lst, 1)


@jit_like_jax("block")
def block(arrays):
    out, _ = _block(arrays)
    return out


def _block(xs):
    if isinstance(xs, tuple):
        raise ValueError("jax.numpy.block does not allow tuples, got {xs}")
    if isinstance(xs, list):
        if not xs:
            raise ValueError("jax.numpy.block does not allow empty list arguments")
        parts, depths = zip(*(_block(x) for x in xs))
        if builtins.any(d != depths[0] for d in depths[1:]):
            raise ValueError("Mismatched list depths in jax.numpy.block")
        rank = builtins.max(depths[0], builtins.max(np.ndim(p) for p in parts))
        parts = [array(p, ndmin=rank) for p in parts]
        return concatenate(parts, axis=-depths[0]), depths[0] + 1
    return asarray(xs), 1


@jit_like_jax("append", static_argnames=('axis',))
def append(arr, values, axis=None):
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], 0)
    return concatenate([arr, values], axis)


# ----------------------------------------------------------------------------------------
# Splitting
# ----------------------------------------------------------------------------------------


def _split(op, ary, ios, axis):
    ary = ensure_arraylike(op, ary)
    axis = canonicalize_axis(concrete_int(axis, f"in jax.numpy.{op} argument `axis`"),
                             np.ndim(ary))
    size = np.shape(ary)[axis]
    if isinstance(ios, (tuple, list)) or (isinstance(ios, (np.ndarray, Array)) and
                                          np.ndim(ios) > 0):
        idx = [concrete_int(i, f"in jax.numpy.{op} argument 1") for i in ios]
        bounds = [0] + idx + [size]
        sizes = [b - a for a, b in zip(bounds[:-1], bounds[1:])]
        if builtins.any(s < 0 for s in sizes):
            raise ValueError(f"Sizes passed to split must be nonnegative, got {sizes}")
    else:
        n = concrete_int(ios, f"in jax.numpy.{op} argument 1")
        part, r = divmod(size, n)
        if r == 0:
            sizes = [part] * n
        elif op == "array_split":
            sizes = [part + 1] * r + [part] * (n - r)
        else:
            raise ValueError(f"array split does not result in an equal division: rest is {r}")
    return list(shapes.split(ary, sizes, axis))


def split(ary, indices_or_sections, axis=0):
    return _split("split", ary, indices_or_sections, axis)


def array_split(ary, indices_or_sections, axis=0):
    return _split("array_split", ary, indices_or_sections, axis)


def hsplit(ary, indices_or_sections):
    ary = ensure_arraylike("hsplit", ary)
    return _split("hsplit", ary, indices_or_sections, 0 if np.ndim(ary) == 1 else 1)


def vsplit(ary, indices_or_sections):
    ary = ensure_arraylike("vsplit", ary)
    return _split("vsplit", ary, indices_or_sections, 0)


def dsplit(ary, indices_or_sections):
    ary = ensure_arraylike("dsplit", ary)
    if np.ndim(ary) < 3:
        raise IndexError("tuple index out of range")
    return _split("dsplit", ary, indices_or_sections, 2)


# ----------------------------------------------------------------------------------------
# Repetition
# ----------------------------------------------------------------------------------------


def tile(A, reps):
    A = ensure_arraylike("tile", A)
    try:
        reps = tuple(operator.index(r) for r in reps)
    except TypeError:
        reps = (operator.index(reps),)
    reps = (1,) * (np.ndim(A) - len(reps)) + reps
    if len(reps) > np.ndim(A):
        A = shapes.expand_dims(A, tuple(range(len(reps) - np.ndim(A))))
    return stacking.tile(A, reps)


def repeat(a, repeats, axis=None, *, total_repeat_length=None, out_sharding=None):
    a = ensure_arraylike("repeat", a)
    if axis is None:
        a = ravel(a)
        axis = 0
    axis = canonicalize_axis(concrete_int(axis, "'axis' argument of jnp.repeat()"),
                             builtins.max(np.ndim(a), 1))
    if total_repeat_length is None:
        repeats = core.concrete_or_error(
            np.asarray, repeats, "When jit-compiling jnp.repeat, the total number of "
            "repeats must be static. To fix this, either specify a static value for "
            "`repeats`, or pass a static value to `total_repeat_length`.")
        if np.ndim(repeats) == 0 and np.ndim(a) != 0:
            return _repeat_scalar(a, int(repeats), axis)
        repeats = np.broadcast_to(np.ravel(repeats), (np.shape(a)[axis],)) if \
            np.ndim(a) else np.ravel(repeats)
        total_repeat_length = int(np.sum(repeats))
    elif np.ndim(a) != 0 and np.size(repeats) == 1:
        # one count for every element (a traced count too), as JAX broadcasts it
        repeats = _broadcast_to(ravel(asarray(repeats)), (np.shape(a)[axis],))
    if np.ndim(a) == 0:
        if np.size(repeats) == 1:
            return _broadcast_to(a, (total_repeat_length,))
        raise ValueError("`repeat` with a scalar parameter `a` is only implemented for "
                         "scalar values of the parameter `repeats`.")
    return _repeat_gather(a, repeats, axis, total_repeat_length)


def _repeat_scalar(a, r, axis):
    shp = np.shape(a)
    aux = list(shp)
    aux.insert(axis + 1, r)
    b = shapes.broadcast_in_dim(a, tuple(aux), tuple(i for i in range(len(aux))
                                                     if i != axis + 1))
    return shapes.reshape(b, (*shp[:axis], shp[axis] * r, *shp[axis + 1:]))


def _repeat_gather(a, repeats, axis, total):
    """Per-element repeat counts: the output position j reads element
    #{i : cumsum(repeats)[i] <= j} of the axis."""
    from didax._src.numpy import reductions, ufuncs  # noqa: PLC0415

    shp = list(np.shape(a))
    if total == 0:
        shp[axis] = 0
        return zeros(tuple(shp), a.dtype)
    if shp[axis] == 0:
        return a
    ends = reductions.cumsum(asarray(repeats, np.int32))
    pos = shapes.iota(np.int32, total)
    src = reductions.sum(ufuncs.less_equal(shapes.expand_dims(ends, (0,)),
                                           shapes.expand_dims(pos, (1,))), axis=1,
                         dtype=np.int32)
    from didax._src.numpy.indexing_ops import take  # noqa: PLC0415

    return take(a, src, axis=axis, mode="clip")


def resize(a, new_shape):
    return _resize(ensure_arraylike("resize", a), _index_tuple(new_shape))


@jit_like_jax("resize", static_argnames=("new_shape",))
def _resize(a, new_shape):
    if builtins.any(d < 0 for d in new_shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    a = ravel(a)
    new_size = math.prod(new_shape)
    if np.size(a) == 0 or new_size == 0:
        return zeros(new_shape, a.dtype)
    reps = -(-new_size // np.size(a))
    return reshape(shapes.slice(tile(a, reps), (0,), (new_size,)), new_shape)


# ----------------------------------------------------------------------------------------
# Reordering
# ----------------------------------------------------------------------------------------


@jit_like_jax("_flip", static_argnames=("axis",))
def _flip(m, axis=None):
    m = ensure_arraylike("flip", m)
    nd = np.ndim(m)
    axes = tuple(range(nd)) if axis is None else tuple(canonicalize_axis(a, nd)
                                                       for a in axis)
    return shapes.rev(m, axes)


def flip(m, axis=None):
    return _flip(m, None if axis is None else _index_tuple(axis))


def fliplr(m):
    return _flip(m, (1,))


def flipud(m):
    return _flip(m, (0,))


@jit_like_jax("rot90", static_argnames=("k", "axes"))
def _rot90(m, k=1, axes=(0, 1)):
    m = ensure_arraylike("rot90", m)
    if np.ndim(m) < 2:
        raise ValueError("rot90 requires its first argument to have ndim at least two, but "
                         f"got first argument of shape {np.shape(m)}, which has ndim "
                         f"{np.ndim(m)}")
    ax1, ax2 = (canonicalize_axis(a, np.ndim(m)) for a in axes)
    if ax1 == ax2:
        raise ValueError("Axes must be different")
    k %= 4
    if k == 0:
        return m
    if k == 2:
        return flip(flip(m, ax1), ax2)
    perm = list(range(np.ndim(m)))
    perm[ax1], perm[ax2] = perm[ax2], perm[ax1]
    if k == 1:
        return shapes.transpose(flip(m, ax2), tuple(perm))
    return flip(shapes.transpose(m, tuple(perm)), ax2)


def rot90(m, k=1, axes=(0, 1)):
    return _rot90(m, operator.index(k), tuple(axes))


def roll(a, shift, axis=None):
    a = ensure_arraylike("roll", a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), np.shape(a))
    axes = tuple(canonicalize_axis(ax, np.ndim(a)) for ax in _index_tuple(axis))
    try:
        shifts = _index_tuple(shift)
    except TypeError:
        return _roll_dynamic(a, asarray(shift), axes)
    return _roll_static(a, shifts, axes)


@jit_like_jax("_roll_static", static_argnames=("shift", "axis"))
def _roll_static(a, shift, axis):
    for ax, s in zip(*np.broadcast_arrays(np.asarray(axis), np.asarray(shift))):
        n = np.shape(a)[ax]
        if n == 0:
            continue
        i = int(-s) % n
        a = shapes.concatenate([shapes.slice_in_dim(a, i, n, axis=int(ax)),
                                shapes.slice_in_dim(a, 0, i, axis=int(ax))], int(ax))
    return a


@jit_like_jax("_roll_dynamic", static_argnames=("axis",))
def _roll_dynamic(a, shift, axis):
    from didax._src.numpy import ufuncs  # noqa: PLC0415

    shifts = _broadcast_to(ravel(shift), (len(axis),)) if np.ndim(shift) else \
        _broadcast_to(shift, (len(axis),))
    for k, ax in enumerate(axis):
        n = np.shape(a)[ax]
        if n == 0:
            continue
        s = ufuncs.remainder(shapes.squeeze(shapes.slice(shifts, (k,), (k + 1,)), (0,)),
                             convert(n, shifts.dtype))
        doubled = shapes.concatenate([a, a], ax)
        start = ufuncs.subtract(convert(n, s.dtype), s)
        a = shapes.dynamic_slice_in_dim(doubled, start, n, axis=ax)
    return a


# ----------------------------------------------------------------------------------------
# delete / insert (static positions)
# ----------------------------------------------------------------------------------------


def _positions(obj, n, name):
    if isinstance(obj, slice):
        return list(range(n))[obj]
    idx = core.concrete_or_error(np.asarray, obj, f"jnp.{name}(): index")
    if idx.dtype == np.bool_:
        if idx.shape != (n,):
            raise ValueError(f"boolean array argument obj to {name} must be one dimensional "
                             f"and match the axis length of {n}")
        return list(np.nonzero(idx)[0])
    return [int(i) for i in np.ravel(idx)]


def delete(arr, obj, axis=None, *, assume_unique_indices=False):
    arr = ensure_arraylike("delete", arr)
    if axis is None:
        arr, axis = ravel(arr), 0
    axis = canonicalize_axis(axis, np.ndim(arr))
    n = np.shape(arr)[axis]
    if not isinstance(obj, slice):
        check_arraylike("delete", obj)
        if assume_unique_indices and isinstance(obj, Tracer) and \
                np.issubdtype(obj.aval.dtype, np.integer):
            return _delete_unique(arr, obj, axis, n)
    drop = {p + n if p < 0 else p for p in _positions(obj, n, "delete")}
    if builtins.any(not 0 <= p < n for p in drop):
        raise IndexError(f"index out of bounds for axis {axis} with size {n}")
    keep = [i for i in range(n) if i not in drop]
    runs, start = [], None
    for j, i in enumerate(keep):
        if start is None:
            start = i
        if j + 1 == len(keep) or keep[j + 1] != i + 1:
            runs.append(shapes.slice_in_dim(arr, start, i + 1, axis=axis))
            start = None
    if not runs:
        return shapes.slice_in_dim(arr, 0, 0, axis=axis)
    return shapes.concatenate(runs, axis) if len(runs) > 1 else runs[0]


def _delete_unique(arr, obj, axis, n):
    """delete with traced indices promised unique: the kept positions are counted out with
    a comparison (no concrete values needed), then gathered (JAX's jit-compatible case)."""
    from didax._src.numpy import lax_numpy as lnp  # noqa: PLC0415
    from didax._src.numpy import reductions as red  # noqa: PLC0415
    from didax._src.numpy.sorting import sort  # noqa: PLC0415

    idx = lnp.ravel(obj)
    idx = sort(lnp.clip(lnp.where(idx < 0, idx + n, idx), 0, n))
    k = np.shape(idx)[0]
    idx = idx - lnp.arange(k, dtype=idx.dtype)
    i = lnp.arange(n - k, dtype=idx.dtype)
    i = i + red.sum(i[None, :] >= idx[:, None], axis=0, dtype=idx.dtype)
    return arr[(slice(None),) * axis + (i,)]


def insert(arr, obj, values, axis=None):
    arr = ensure_arraylike("insert", arr)
    if not isinstance(obj, slice):
        check_arraylike("insert", obj)
    if axis is None:
        arr, axis = ravel(arr), 0
    axis = canonicalize_axis(axis, np.ndim(arr))
    n = np.shape(arr)[axis]
    scalar_obj = not isinstance(obj, slice) and np.ndim(obj) == 0
    pos = [p + n if p < 0 else p for p in _positions(obj, n + 1, "insert")]
    values = asarray(values, arr.dtype)
    if scalar_obj:
        vals = moveaxis(array(values, ndmin=np.ndim(arr)), 0, axis) if np.ndim(values) \
            else values
        shp = list(np.shape(arr))
        shp[axis] = np.shape(vals)[axis] if np.ndim(values) else 1
        vals = _broadcast_to(vals, tuple(shp))
        return concatenate([shapes.slice_in_dim(arr, 0, pos[0], axis=axis), vals,
                            shapes.slice_in_dim(arr, pos[0], n, axis=axis)], axis)
    shp = list(np.shape(arr))
    shp[axis] = len(pos)
    vals = _broadcast_to(moveaxis(array(values, ndmin=1), -1, axis) if np.ndim(values)
                         else values, tuple(shp))
    order = sorted(range(len(pos)), key=lambda k: pos[k])
    parts, prev = [], 0
    for k in order:
        parts.append(shapes.slice_in_dim(arr, prev, pos[k], axis=axis))
        parts.append(shapes.slice_in_dim(vals, k, k + 1, axis=axis))
        prev = pos[k]
    parts.append(shapes.slice_in_dim(arr, prev, n, axis=axis))
    return concatenate(parts, axis)


