"""Structural primitives of `didax.lax`: broadcast_in_dim, reshape, squeeze, transpose, rev,
concatenate, split, pad, slice, dynamic_slice, dynamic_update_slice and iota — each declared
once with all its rules — plus `full`/`full_like`/`broadcast`/`expand_dims` helpers.

May import core, dtypes, the interpreters, lax._define and lax.lax.
"""

from __future__ import annotations

import builtins
import operator
from collections.abc import Sequence

import numpy as np

from didax._src import core, dtypes
from didax._src.array import Array
from didax._src.core import ShapedArray, Tracer
from didax._src.interpreters import ad, batching
from didax._src.interpreters.ad import Zero
from didax._src.interpreters.lowering import i64_array
from didax._src.lax import lax
from didax._src.lax._define import (
    NONLINEAR,
    ZERO_JVP,
    check_same_dtypes,
    def_primitive,
    unsupported,
)


def _shape_tuple(shape) -> tuple[int, ...]:
    try:
        return tuple(operator.index(d) for d in shape)
    except TypeError:
        return tuple(int(core.concrete_or_error(operator.index, d, "shape")) for d in shape)


def _index_tuple(xs) -> tuple:
    """xs as a tuple, each entry checked to be an integer but kept as given (JAX keeps
    NumPy integers in parameters, and its jaxprs print them as np.int64(...))."""
    xs = tuple(xs)
    for x in xs:
        operator.index(x)
    return xs


def _linear(prim):
    """JVP of a primitive linear in its first operand (the others are indices/static)."""

    def rule(primals, tangents, **params):
        ans = prim.bind(*primals, **params)
        t = tangents[0]
        if type(t) is Zero:
            return ans, Zero.from_primal_value(ans)
        return ans, prim.bind(t, *primals[1:], **params)
    return rule


# ----------------------------------------------------------------------------------------
# broadcast_in_dim
# ----------------------------------------------------------------------------------------


def _bid_abstract_eval(x, *, shape, broadcast_dimensions, sharding):
    bd = broadcast_dimensions
    if len(bd) != x.ndim:
        raise TypeError(f"broadcast_in_dim broadcast_dimensions must have length equal to "
                        f"operand ndim; got broadcast_dimensions {bd} for operand ndim "
                        f"{x.ndim}.")
    if x.ndim > len(shape):
        raise TypeError(f"broadcast_in_dim target broadcast shape must have equal or higher "
                        f"rank to the operand shape; got operand ndim {x.ndim} and target "
                        f"broadcast ndim {len(shape)}.")
    if any(not (x.shape[i] == 1 or x.shape[i] == shape[d]) for i, d in enumerate(bd)):
        raise TypeError(f"broadcast_in_dim operand dimension sizes must either be 1, or be "
                        f"equal to their corresponding dimensions in the target broadcast "
                        f"shape; got operand of shape {x.shape}, target broadcast shape "
                        f"{shape}, broadcast_dimensions {bd} ")
    if len(set(bd)) != len(bd):  # any order is allowed (JAX 0.10), repeats are not
        raise TypeError(f"broadcast_in_dim broadcast_dimensions must not repeat; "
                        f"got broadcast_dimensions {bd}")
    return ShapedArray(shape, x.dtype, x.weak_type)


def _bid_impl(x, *, shape, broadcast_dimensions, sharding):
    if not broadcast_dimensions and type(x) is np.ndarray:  # a scalar: all strides 0
        out = np.ndarray(shape, x.dtype, x, 0, (0,) * len(shape))
        out.flags.writeable = False
        return out
    if any(b < a for a, b in zip(broadcast_dimensions, broadcast_dimensions[1:])):
        order = np.argsort(broadcast_dimensions)  # operand axes in output order
        x = x.transpose(order)
        broadcast_dimensions = tuple(np.asarray(broadcast_dimensions)[order])
    expanded = [1] * len(shape)
    for i, d in enumerate(broadcast_dimensions):
        expanded[d] = x.shape[i]
    x = x.reshape(expanded)
    if not x.flags.c_contiguous:
        return np.broadcast_to(x, shape)
    # the read-only view np.broadcast_to makes, built directly (10x cheaper): stride 0
    # along every broadcast dimension
    strides = tuple(st if e == s else 0 for e, s, st in zip(expanded, shape, x.strides))
    out = np.ndarray(shape, x.dtype, x, 0, strides)
    out.flags.writeable = False
    return out


def _bid_transpose(ct, x, *, shape, broadcast_dimensions, sharding):
    """As JAX's rule: every size-1 operand dim is summed too, then put back by a
    broadcast_in_dim (expand_dims), so the transposed program is JAX's equation for
    equation."""
    if type(ct) is Zero:
        return [Zero(x.aval)]
    in_shape = x.aval.shape
    unit = [i for i, d in enumerate(in_shape) if d == 1]
    kept = tuple(d for i, d in enumerate(broadcast_dimensions) if i not in unit)
    axes = tuple(a for a in range(len(shape)) if a not in kept)
    out = reduce_sum(ct, axes) if axes else ct
    if any(b < a for a, b in zip(kept, kept[1:])):  # back to the operand's axis order
        out = transpose(out, tuple(int(i) for i in np.argsort(np.argsort(kept))))
    if unit:
        out = broadcast_in_dim(out, in_shape, [i for i in range(len(in_shape))
                                               if i not in unit])
    return [out]


def _bid_batch(axis_data, vals, dims, *, shape, broadcast_dimensions, sharding):
    (x,), (d,) = vals, dims
    x = batching.moveaxis(x, d, 0)
    new_shape = (np.shape(x)[0], *shape)
    new_bd = (0, *np.add(1, broadcast_dimensions))  # NumPy ints, as JAX's rule makes
    return broadcast_in_dim_p.bind(x, shape=new_shape, broadcast_dimensions=new_bd,
                                   sharding=None), 0


def _bid_lower(ctx, x, *, shape, broadcast_dimensions, sharding):
    return ctx.fn.op1("stablehlo.broadcast_in_dim", [x], ctx.avals_out[0],
                      f"broadcast_dimensions = {i64_array(broadcast_dimensions)}")


def _bid_pp(eqn):
    params = dict(eqn.params)
    if not params["broadcast_dimensions"]:
        del params["broadcast_dimensions"]
    del params["shape"]
    params.pop("sharding", None)
    return sorted(params.items())


broadcast_in_dim_p = def_primitive(
    "broadcast_in_dim", abstract_eval=_bid_abstract_eval, impl=_bid_impl, jvp=None,
    transpose=_bid_transpose, batch=_bid_batch, lower=_bid_lower, pp_params=_bid_pp)
ad.primitive_jvps[broadcast_in_dim_p] = _linear(broadcast_in_dim_p)
ad.linearity[broadcast_in_dim_p] = "joint"


def broadcast_in_dim(operand, shape, broadcast_dimensions):
    if type(shape) is not tuple or not all(type(d) is int for d in shape):
        shape = _shape_tuple(shape)
    bd = _index_tuple(broadcast_dimensions)
    aval = core.get_aval(operand)
    if aval.shape == shape and bd == tuple(range(len(shape))) and not isinstance(operand,
                                                                                Tracer):
        if not core.is_literalable(operand) or shape:
            return operand
    return broadcast_in_dim_p.bind(operand, shape=shape, broadcast_dimensions=bd,
                                   sharding=None)


def broadcast(operand, sizes):
    """Prepends dimensions of the given sizes."""
    sizes = _shape_tuple(sizes)
    if not sizes:
        return operand
    nd = np.ndim(operand)
    dims = tuple(range(len(sizes), len(sizes) + nd))
    return broadcast_in_dim(operand, sizes + tuple(np.shape(operand)), dims)


def broadcast_like(arr, like_arr):
    """`lax.broadcast_like`: arr broadcast (NumPy-style, leading axes added) to the shape
    of like_arr."""
    shape = tuple(core.get_aval(like_arr).shape)
    x_shape = tuple(np.shape(arr))
    if x_shape == shape:
        return arr
    nlead = len(shape) - len(x_shape)
    if nlead < 0 or any(a not in (1, b) for a, b in zip(x_shape, shape[nlead:])):
        raise ValueError(f"Incompatible types for broadcasting: input shape {x_shape} and "
                         f"requested shape {shape}")
    return broadcast_in_dim(arr, shape, tuple(range(nlead, len(shape))))


def broadcast_to_rank(x, rank: int):
    nd = np.ndim(x)
    if nd >= rank:
        return x
    return broadcast(x, (1,) * (rank - nd))


def expand_dims(array, dimensions: Sequence[int]):
    """Inserts size-1 axes (a broadcast_in_dim, as JAX does)."""
    ndim_out = np.ndim(array) + len(dimensions)
    dims = sorted(d % ndim_out if d < 0 else d for d in dimensions)
    shape = list(np.shape(array))
    for d in dims:
        shape.insert(d, 1)
    bd = tuple(i for i in range(ndim_out) if i not in dims)
    return broadcast_in_dim_p.bind(array, shape=tuple(shape), broadcast_dimensions=bd,
                                   sharding=None)


def full(shape, fill_value, dtype=None, weak_type: bool = False):
    """An array of `shape` filled with fill_value (a literal scalar when shape is ())."""
    if type(shape) is not tuple or not all(type(d) is int for d in shape):
        shape = _shape_tuple(shape)
    if dtype is None:
        dtype = dtypes.dtype(fill_value, canonicalize=True)
    dtype = dtypes.canonicalize_dtype(np.dtype(dtype))
    if isinstance(fill_value, Tracer):
        fill = lax._convert_element_type(fill_value, dtype, weak_type)
    elif weak_type:
        fill = core.typed_scalar(np.array(fill_value, dtype).item(), dtype, True)
        if not shape:
            return lax.host_constant(fill.val, dtype, True)
    else:  # eagerly, an Array operand (staged, the fill must stay a NumPy literal)
        fill = _host_fill(fill_value, dtype,
                          as_array=bool(shape) and core.trace_ctx.trace is core.eval_trace)
    if not shape:
        return fill
    return broadcast_in_dim_p.bind(fill, shape=shape, broadcast_dimensions=(), sharding=None)


_FILL_CACHE: dict = {}  # (type, value, dtype) -> (0-d NumPy fill, the same as an Array)


def _host_fill(fill_value, dtype, as_array: bool = False):
    """fill_value as a 0-d array of dtype (an Array when as_array: eager operations take
    those fastest). Python scalars' are kept, read-only: zeros and ones are made on every
    backward pass."""
    key = (type(fill_value), fill_value, dtype)
    try:
        pair = _FILL_CACHE[key]
    except (KeyError, TypeError):
        fill = np.asarray(np.array(np.asarray(fill_value), dtype)[()], dtype)
        pair = (fill, fill)
        if type(fill_value) in (bool, int, float) and len(_FILL_CACHE) < 4096:
            fill.flags.writeable = False
            pair = _FILL_CACHE[key] = (fill, Array(fill, ShapedArray((), fill.dtype)))
    return pair[1] if as_array else pair[0]


def full_like(x, fill_value, dtype=None, shape=None):
    """Like x (its weak type too when dtype is not given, as JAX's full_like)."""
    aval = core.get_aval(x)
    return full(aval.shape if shape is None else shape, fill_value,
                aval.dtype if dtype is None else dtype,
                weak_type=dtype is None and aval.weak_type)


def zeros_like_array(x):
    return full_like(x, 0)


def _zeros_like_aval(aval):
    """Zeros of aval's type, weak type included (a zero cotangent for a Python-scalar input
    is weakly typed in JAX)."""
    if not aval.weak_type:
        return full(aval.shape, 0, aval.dtype)
    zero = lax.host_constant(0, aval.dtype, True)
    if not aval.shape:
        return zero
    return broadcast_in_dim_p.bind(zero, shape=aval.shape, broadcast_dimensions=(),
                                   sharding=None)


ad.zeros_like_aval_impl = _zeros_like_aval
ad.broadcast_p_for_zeros = broadcast_in_dim_p

# ----------------------------------------------------------------------------------------
# reshape / squeeze / transpose / rev
# ----------------------------------------------------------------------------------------


def _reshape_abstract_eval(x, *, new_sizes, dimensions, sharding):
    if any(d < 0 for d in new_sizes):
        raise TypeError(f"reshape new_sizes must all be positive, got {new_sizes}.")
    if core._prod(new_sizes) != x.size:
        raise TypeError(f"reshape total size must be unchanged, got new_sizes {new_sizes} "
                        f"(of total size {core._prod(new_sizes)}) for shape {x.shape} (of "
                        f"total size {x.size}).")
    if dimensions is not None and set(dimensions) != set(range(x.ndim)):
        raise TypeError(f"reshape dimensions must be a permutation of operand dimensions, "
                        f"got dimensions {dimensions} for shape {x.shape}.")
    return ShapedArray(new_sizes, x.dtype, x.weak_type)


def _reshape_impl(x, *, new_sizes, dimensions, sharding):
    if dimensions is not None:
        x = np.transpose(x, dimensions)
    return x.reshape(new_sizes)


def _reshape_transpose(ct, x, *, new_sizes, dimensions, sharding):
    if type(ct) is Zero:
        return [Zero(x.aval)]
    if dimensions is None:
        return [reshape(ct, x.aval.shape)]
    inv = np.argsort(dimensions)
    permuted = tuple(np.take(x.aval.shape, dimensions))
    return [transpose(reshape(ct, permuted), tuple(int(i) for i in inv))]


def _reshape_batch(axis_data, vals, dims, *, new_sizes, dimensions, sharding):
    (x,), (d,) = vals, dims
    x = batching.moveaxis(x, d, 0)
    if dimensions is not None:
        dimensions = (0, *(i + 1 for i in dimensions))
    return reshape_p.bind(x, new_sizes=(np.shape(x)[0], *new_sizes), dimensions=dimensions,
                          sharding=None), 0


def _reshape_lower(ctx, x, *, new_sizes, dimensions, sharding):
    if dimensions is not None:
        perm_aval = ShapedArray(tuple(np.take(x.aval.shape, dimensions)), x.aval.dtype)
        x = ctx.fn.op1("stablehlo.transpose", [x], perm_aval,
                       f"permutation = {i64_array(dimensions)}")
    return ctx.fn.op1("stablehlo.reshape", [x], ctx.avals_out[0])


reshape_p = def_primitive(
    "reshape", abstract_eval=_reshape_abstract_eval, impl=_reshape_impl, jvp=None,
    transpose=_reshape_transpose, batch=_reshape_batch, lower=_reshape_lower)
ad.primitive_jvps[reshape_p] = _linear(reshape_p)
ad.linearity[reshape_p] = "joint"


def reshape(operand, new_sizes, dimensions=None):
    new_sizes = _shape_tuple(new_sizes)
    dims = None if dimensions is None else tuple(int(d) for d in dimensions)
    aval = core.get_aval(operand)
    if dims is not None and dims == tuple(range(aval.ndim)):
        dims = None
    if aval.shape == new_sizes and dims is None and not isinstance(operand, Tracer):
        return operand
    if aval.shape == new_sizes and dims is None:
        return operand
    return reshape_p.bind(operand, new_sizes=new_sizes, dimensions=dims, sharding=None)


def _squeeze_abstract_eval(x, *, dimensions):
    for d in dimensions:
        if not 0 <= d < x.ndim:
            raise ValueError(f"dimensions outside range [0, ndim): {dimensions}")
        if x.shape[d] != 1:
            raise ValueError(f"cannot select an axis to squeeze out which has size not equal "
                             f"to one, got shape={x.shape} and dimensions={dimensions}")
    shape = tuple(s for i, s in enumerate(x.shape) if i not in dimensions)
    return ShapedArray(shape, x.dtype, x.weak_type)


def _squeeze_batch(axis_data, vals, dims, *, dimensions):
    (x,), (d,) = vals, dims
    x = batching.moveaxis(x, d, 0)
    return squeeze_p.bind(x, dimensions=tuple(i + 1 for i in dimensions)), 0


squeeze_p = def_primitive(
    "squeeze", abstract_eval=_squeeze_abstract_eval,
    impl=lambda x, *, dimensions: np.squeeze(x, tuple(dimensions)) if dimensions else x,
    jvp=None,
    transpose=lambda ct, x, *, dimensions: [Zero(x.aval) if type(ct) is Zero
                                            else expand_dims(ct, dimensions)],
    batch=_squeeze_batch,
    lower=lambda ctx, x, *, dimensions: ctx.fn.op1("stablehlo.reshape", [x],
                                                   ctx.avals_out[0]))
ad.primitive_jvps[squeeze_p] = _linear(squeeze_p)
ad.linearity[squeeze_p] = "joint"


def squeeze(array, dimensions: Sequence[int]):
    ndim = np.ndim(array)
    dims = tuple(sorted(canonicalize_axis(d, ndim) for d in dimensions))
    if not dims:
        return array
    return squeeze_p.bind(array, dimensions=dims)


def canonicalize_axis(axis, ndim):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim if axis < 0 else axis


def _transpose_abstract_eval(x, *, permutation):
    if tuple(sorted(permutation)) != tuple(range(x.ndim)):
        raise TypeError(f"transpose permutation isn't a permutation of operand dimensions, "
                        f"got permutation {permutation} for operand shape {x.shape}.")
    return ShapedArray(tuple(x.shape[p] for p in permutation), x.dtype, x.weak_type)


def _transpose_batch(axis_data, vals, dims, *, permutation):
    (x,), (d,) = vals, dims
    perm = (d, *(p + (p >= d) for p in permutation))
    return transpose_p.bind(x, permutation=perm), 0


transpose_p = def_primitive(
    "transpose", abstract_eval=_transpose_abstract_eval,
    impl=lambda x, *, permutation: np.transpose(x, permutation), jvp=None,
    transpose=lambda ct, x, *, permutation: [
        Zero(x.aval) if type(ct) is Zero
        else transpose(ct, tuple(int(i) for i in np.argsort(permutation)))],
    batch=_transpose_batch,
    lower=lambda ctx, x, *, permutation: ctx.fn.op1(
        "stablehlo.transpose", [x], ctx.avals_out[0],
        f"permutation = {i64_array(permutation)}"))
ad.primitive_jvps[transpose_p] = _linear(transpose_p)
ad.linearity[transpose_p] = "joint"


def transpose(operand, permutation):
    if type(permutation) is not tuple or not all(type(p) is int for p in permutation):
        permutation = tuple(operator.index(p) for p in permutation)
    if permutation == tuple(range(np.ndim(operand))):
        return operand
    return transpose_p.bind(operand, permutation=permutation)


def _rev_abstract_eval(x, *, dimensions):
    if len(set(dimensions)) != len(dimensions):
        raise TypeError(f"rev dimensions must be unique, got {dimensions}.")
    if any(d < 0 for d in dimensions):
        raise TypeError(f"rev dimensions must have every element be nonnegative, got "
                        f"{dimensions}.")
    if any(d >= x.ndim for d in dimensions):
        raise TypeError(f"rev dimensions must all be less than operand ndim, got dimensions "
                        f"{dimensions} for operand ndim {x.ndim}.")
    return ShapedArray(x.shape, x.dtype, x.weak_type)


def _rev_batch(axis_data, vals, dims, *, dimensions):
    (x,), (d,) = vals, dims
    return rev_p.bind(x, dimensions=tuple(i + (i >= d) for i in dimensions)), d


rev_p = def_primitive(
    "rev", abstract_eval=_rev_abstract_eval,
    impl=lambda x, *, dimensions: np.flip(x, dimensions) if dimensions else x, jvp=None,
    transpose=lambda ct, x, *, dimensions: [Zero(x.aval) if type(ct) is Zero
                                            else rev(ct, dimensions)],
    batch=_rev_batch,
    lower=lambda ctx, x, *, dimensions: ctx.fn.op1(
        "stablehlo.reverse", [x], ctx.avals_out[0], f"dimensions = {i64_array(dimensions)}"))
ad.primitive_jvps[rev_p] = _linear(rev_p)
ad.linearity[rev_p] = "joint"


def rev(operand, dimensions):
    return rev_p.bind(operand, dimensions=tuple(operator.index(d) for d in dimensions))


# ----------------------------------------------------------------------------------------
# concatenate / split
# ----------------------------------------------------------------------------------------


def _concat_abstract_eval(*xs, dimension):
    if not xs:
        raise TypeError("concatenate requires a non-empty sequence of operands")
    nd = xs[0].ndim
    if any(x.ndim != nd for x in xs):
        raise TypeError(f"Cannot concatenate arrays with different numbers of dimensions: "
                        f"got {', '.join(str(x.shape) for x in xs)}.")
    if not 0 <= dimension < nd:
        raise TypeError(f"concatenate dimension out of bounds: dimension {dimension} for "
                        f"shapes {', '.join(str(x.shape) for x in xs)}.")
    for x in xs[1:]:
        if any(a != b for i, (a, b) in enumerate(zip(x.shape, xs[0].shape)) if i != dimension):
            raise TypeError(f"Cannot concatenate arrays with shapes that differ in dimensions "
                            f"other than the one being concatenated: concatenating along "
                            f"dimension {dimension} for shapes "
                            f"{', '.join(str(x.shape) for x in xs)}.")
    check_same_dtypes("concatenate", *xs)
    shape = list(xs[0].shape)
    shape[dimension] = sum(x.shape[dimension] for x in xs)
    return ShapedArray(shape, xs[0].dtype, all(x.weak_type for x in xs))


def _concat_jvp(primals, tangents, *, dimension):
    ans = concatenate_p.bind(*primals, dimension=dimension)
    if all(type(t) is Zero for t in tangents):
        return ans, Zero.from_primal_value(ans)
    ts = [ad.instantiate_zeros(t) for t in tangents]
    return ans, concatenate_p.bind(*ts, dimension=dimension)


def _concat_transpose(ct, *xs, dimension):
    if type(ct) is Zero:
        return [Zero(x.aval) if ad.is_undefined_primal(x) else None for x in xs]
    sizes = tuple(x.aval.shape[dimension] if ad.is_undefined_primal(x)
                  else np.shape(x)[dimension] for x in xs)
    parts = split_p.bind(ct, sizes=sizes, axis=dimension)
    return [p if ad.is_undefined_primal(x) else None for p, x in zip(parts, xs)]


def _concat_batch(axis_data, vals, dims, *, dimension):
    size = axis_data.size
    xs = [batching.bdim_at_front(x, d, size) for x, d in zip(vals, dims)]
    return concatenate_p.bind(*xs, dimension=dimension + 1), 0


concatenate_p = def_primitive(
    "concatenate", abstract_eval=_concat_abstract_eval,
    impl=lambda *xs, dimension: np.concatenate(xs, axis=dimension), jvp=_concat_jvp,
    transpose=_concat_transpose, batch=_concat_batch, linear="joint",
    lower=lambda ctx, *xs, dimension: ctx.fn.op1(
        "stablehlo.concatenate", xs, ctx.avals_out[0], f"dimension = {dimension} : i64"))


def concatenate(operands, dimension: int):
    operands = list(operands)
    if len(operands) == 1:
        return operands[0]
    return concatenate_p.bind(*operands, dimension=operator.index(dimension))


def _split_abstract_eval(x, *, sizes, axis):
    if not 0 <= axis < x.ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {x.ndim}")
    if sum(sizes) != x.shape[axis]:
        raise ValueError(f"Sum of sizes {sum(sizes)} must be equal to dimension {axis} of the "
                         f"operand shape {list(x.shape)}")
    outs = []
    for s in sizes:
        shape = list(x.shape)
        shape[axis] = s
        outs.append(ShapedArray(shape, x.dtype, x.weak_type))
    return outs


def _split_impl(x, *, sizes, axis):
    return np.split(x, np.cumsum(sizes)[:-1], axis=axis)


def _split_jvp(primals, tangents, *, sizes, axis):
    ans = split_p.bind(primals[0], sizes=sizes, axis=axis)
    if type(tangents[0]) is Zero:
        return ans, [Zero.from_primal_value(a) for a in ans]
    return ans, split_p.bind(tangents[0], sizes=sizes, axis=axis)


def _split_transpose(cts, x, *, sizes, axis):
    parts = []
    for ct, s in zip(cts, sizes):
        if type(ct) is Zero:
            shape = list(x.aval.shape)
            shape[axis] = s
            ct = full(shape, 0, x.aval.dtype)
        parts.append(ct)
    return [concatenate_p.bind(*parts, dimension=axis)]


def _split_lower(ctx, x, *, sizes, axis):
    outs, start = [], 0
    for s, aval in zip(sizes, ctx.avals_out):
        starts = [0] * x.aval.ndim
        limits = list(x.aval.shape)
        starts[axis], limits[axis] = start, start + s
        outs.append(ctx.fn.op1("stablehlo.slice", [x], aval,
                               f"start_indices = {i64_array(starts)}, limit_indices = "
                               f"{i64_array(limits)}, strides = {i64_array([1] * len(limits))}"))
        start += s
    return outs


split_p = def_primitive(
    "split", abstract_eval=_split_abstract_eval, impl=_split_impl, jvp=_split_jvp,
    transpose=_split_transpose,
    batch=lambda axis_data, vals, dims, *, sizes, axis: (
        split_p.bind(vals[0], sizes=sizes, axis=axis + (dims[0] <= axis)),
        [dims[0]] * len(sizes)),
    lower=_split_lower, multiple_results=True)


def split(operand, sizes, axis: int = 0):
    """Splits operand along `axis` into pieces of the given sizes (kept as given, as JAX
    keeps them)."""
    return split_p.bind(operand, sizes=_index_tuple(sizes),
                        axis=canonicalize_axis(axis, np.ndim(operand)))


# ----------------------------------------------------------------------------------------
# pad / slice
# ----------------------------------------------------------------------------------------


def _pad_abstract_eval(x, pv, *, padding_config):
    if pv.shape != ():
        raise TypeError(f"padding_value must be a scalar; got {pv.shape}")
    if x.dtype != pv.dtype:
        raise TypeError(f"pad operand and padding_value must be same dtype: got "
                        f"{x.dtype.name} and {pv.dtype.name}.")
    if len(padding_config) != x.ndim:
        raise ValueError(f"length of padding_config must equal the number of axes of operand, "
                         f"got padding_config {padding_config} for operand shape {x.shape}")
    shape = []
    for d, (lo, hi, interior) in zip(x.shape, padding_config):
        if interior < 0:
            raise ValueError(f"interior padding in padding_config must be nonnegative, got "
                             f"padding_config {padding_config}")
        n = d + lo + hi + max(d - 1, 0) * interior
        if n < 0:
            raise ValueError(f"Dimension size after padding is not at least 0, got result "
                             f"shape {n} for padding_config {padding_config}")
        shape.append(int(n))
    return ShapedArray(shape, x.dtype, x.weak_type and pv.weak_type)


def _pad_impl(x, pv, *, padding_config):
    for ax, (lo, hi, interior) in enumerate(padding_config):
        lo, hi, interior = int(lo), int(hi), int(interior)
        if interior:
            n = x.shape[ax]
            shape = list(x.shape)
            shape[ax] = n + max(n - 1, 0) * interior
            out = np.full(shape, pv, x.dtype)
            idx = [builtins.slice(None)] * x.ndim
            idx[ax] = builtins.slice(None, None, interior + 1)
            out[tuple(idx)] = x
            x = out
        if lo < 0 or hi < 0:
            idx = [builtins.slice(None)] * x.ndim
            idx[ax] = builtins.slice(max(-lo, 0), x.shape[ax] - max(-hi, 0))
            x = x[tuple(idx)]
        widths = [(0, 0)] * x.ndim
        widths[ax] = (max(lo, 0), max(hi, 0))
        x = np.pad(x, widths, constant_values=pv)
    return x


def _pad_transpose(ct, x, pv, *, padding_config):
    lin_x, lin_pv = ad.is_undefined_primal(x), ad.is_undefined_primal(pv)
    if type(ct) is Zero:
        return [Zero(x.aval) if lin_x else None, Zero(pv.aval) if lin_pv else None]
    lo, hi, interior = zip(*padding_config)
    # unpad, then drop the interior padding with a strided slice (NumPy ints as in JAX)
    neg_cfg = tuple(zip(np.negative(lo), np.negative(hi), np.zeros_like(interior)))
    unpadded = pad(ct, np.array(0, ct.dtype)[()], neg_cfg)
    t_x = slice(unpadded, list(np.zeros_like(lo)), np.shape(unpadded),
                list(np.add(interior, 1)))
    outs = [t_x if lin_x else None, None]
    if lin_pv:
        total = reduce_sum(ct, tuple(range(np.ndim(ct))))
        inner = reduce_sum(t_x, tuple(range(np.ndim(t_x))))
        outs[1] = lax.sub(total, inner)
    return outs


def _pad_jvp(primals, tangents, *, padding_config):
    x, pv = primals
    tx, tpv = tangents
    ans = pad_p.bind(x, pv, padding_config=padding_config)
    if type(tx) is Zero and type(tpv) is Zero:
        return ans, Zero.from_primal_value(ans)
    tx, tpv = ad.instantiate_zeros(tx), ad.instantiate_zeros(tpv)
    return ans, pad_p.bind(tx, tpv, padding_config=padding_config)


def _pad_batch(axis_data, vals, dims, *, padding_config):
    (x, pv), (d, pd) = vals, dims
    if pd is None:
        cfg = list(padding_config)
        cfg.insert(d, (0, 0, 0))
        return pad_p.bind(x, pv, padding_config=tuple(cfg)), d
    # A batched padding value: pad with zero, then select the padded positions.
    size = axis_data.size
    x = batching.bdim_at_front(x, d, size)
    cfg = ((0, 0, 0), *padding_config)
    zero = np.array(0, np.dtype(core.get_aval(x).dtype))[()]
    padded = pad_p.bind(x, zero, padding_config=cfg)
    mask = pad_p.bind(full(np.shape(x), True, np.bool_), np.False_, padding_config=cfg)
    pvb = batching.moveaxis(pv, pd, 0)
    pvb = broadcast_in_dim(pvb, np.shape(padded), (0,))
    return lax.select(mask, padded, pvb), 0


def _pad_lower(ctx, x, pv, *, padding_config):
    lo, hi, interior = zip(*padding_config) if padding_config else ((), (), ())
    return ctx.fn.op1("stablehlo.pad", [x, pv], ctx.avals_out[0],
                      f"edge_padding_low = {i64_array(lo)}, edge_padding_high = "
                      f"{i64_array(hi)}, interior_padding = {i64_array(interior)}")


pad_p = def_primitive(
    "pad", abstract_eval=_pad_abstract_eval, impl=_pad_impl, jvp=_pad_jvp,
    transpose=_pad_transpose, batch=_pad_batch, lower=_pad_lower, linear="joint")


def pad(operand, padding_value, padding_config):
    cfg = tuple(tuple(c) for c in padding_config)
    return pad_p.bind(operand, padding_value, padding_config=cfg)


def _slice_abstract_eval(x, *, start_indices, limit_indices, strides):
    start, limit = start_indices, limit_indices
    problem = None
    if x.ndim != len(start):
        problem = (f"start_indices must have length equal to the number of dimensions of "
                   f"the operand, got indices {start} for operand shape {x.shape}.")
    elif len(start) != len(limit):
        problem = (f"limit_indices must have the same length as start_indices, got "
                   f"start_indices {start} and limit_indices {limit}.")
    elif any(l > d for l, d in zip(limit, x.shape)):
        problem = (f"limit_indices must be less than or equal to operand shape, got "
                   f"limit_indices {limit} for operand shape {x.shape}.")
    elif any(i < 0 for i in start):
        problem = (f"start_indices must be greater than or equal to zero, got "
                   f"start_indices of {start}.")
    elif any(l < i for i, l in zip(start, limit)):
        problem = (f"limit_indices must be greater than or equal to start_indices, got "
                   f"start_indices {start} and limit_indices {limit}.")
    elif strides is not None and len(strides) != x.ndim:
        problem = (f"strides must have length equal to the number of dimensions of the "
                   f"operand, got strides {strides} for operand shape {x.shape}.")
    elif strides is not None and any(k <= 0 for k in strides):
        problem = f"strides must be positive, got {strides}"
    if problem is not None:
        raise TypeError("slice " + problem)
    st = strides or (1,) * x.ndim
    shape = tuple(int(-(-(l - i) // k)) for i, l, k in zip(start, limit, st))
    return ShapedArray(shape, x.dtype, x.weak_type)


def _slice_impl(x, *, start_indices, limit_indices, strides):
    st = strides or (1,) * x.ndim
    return x[tuple(builtins.slice(s, l, k) for s, l, k in zip(start_indices, limit_indices, st))]


def _slice_transpose(ct, x, *, start_indices, limit_indices, strides):
    shape = x.aval.shape
    if type(ct) is Zero:
        return [Zero(x.aval)]
    if strides is None or all(s == 1 for s in strides):
        pads = tuple(zip(start_indices, np.subtract(shape, limit_indices), (0,) * len(shape)))
    else:
        real_limits = np.add(start_indices, np.where(
            np.array(np.shape(ct)) == 0, 0,
            np.add(1, np.multiply(np.subtract(np.shape(ct), 1), strides))))
        pads = tuple(zip(start_indices, np.subtract(shape, real_limits),
                         np.subtract(strides, 1)))
    return [pad(ct, np.array(0, x.aval.dtype)[()], pads)]


def _slice_batch(axis_data, vals, dims, *, start_indices, limit_indices, strides):
    (x,), (d,) = vals, dims
    start = list(start_indices)
    start.insert(d, 0)
    limit = list(limit_indices)
    limit.insert(d, np.shape(x)[d])
    st = None
    if strides is not None:
        st = list(strides)
        st.insert(d, 1)
        st = tuple(st)
    return slice_p.bind(x, start_indices=tuple(start), limit_indices=tuple(limit),
                        strides=st), d


def _slice_lower(ctx, x, *, start_indices, limit_indices, strides):
    st = strides or (1,) * len(start_indices)
    return ctx.fn.op1("stablehlo.slice", [x], ctx.avals_out[0],
                      f"start_indices = {i64_array(start_indices)}, limit_indices = "
                      f"{i64_array(limit_indices)}, strides = {i64_array(st)}")


slice_p = def_primitive(
    "slice", abstract_eval=_slice_abstract_eval, impl=_slice_impl, jvp=None,
    transpose=_slice_transpose, batch=_slice_batch, lower=_slice_lower)
ad.primitive_jvps[slice_p] = _linear(slice_p)
ad.linearity[slice_p] = "joint"


def slice(operand, start_indices, limit_indices, strides=None):  # noqa: A001
    start, limit = _index_tuple(start_indices), _index_tuple(limit_indices)
    st = None if strides is None else _index_tuple(strides)
    return slice_p.bind(operand, start_indices=start, limit_indices=limit, strides=st)


def slice_in_dim(operand, start_index, limit_index, stride=1, axis=0):
    shape = np.shape(operand)
    axis = canonicalize_axis(axis, len(shape))
    start = [0] * len(shape)
    limit = list(shape)
    strides = [1] * len(shape)
    n = shape[axis]
    s = 0 if start_index is None else start_index
    e = n if limit_index is None else limit_index
    start[axis] = s + n if s < 0 else s
    limit[axis] = e + n if e < 0 else e
    strides[axis] = stride
    return slice(operand, start, limit, strides)


def index_in_dim(operand, index, axis=0, keepdims=True):
    n = np.shape(operand)[axis]
    index = index + n if index < 0 else index
    out = slice_in_dim(operand, index, index + 1, 1, axis)
    return out if keepdims else squeeze(out, (axis,))


# ----------------------------------------------------------------------------------------
# iota
# ----------------------------------------------------------------------------------------


def _iota_abstract_eval(*, dtype, shape, dimension, sharding):
    if not 0 <= dimension < len(shape):
        raise ValueError(f"iota dimension must be between 0 and len(shape), got "
                         f"dimension={dimension} for shape={shape}")
    return ShapedArray(shape, dtype)


def _iota_impl(*, dtype, shape, dimension, sharding):
    r = np.arange(shape[dimension], dtype=dtype)
    view = [1] * len(shape)
    view[dimension] = shape[dimension]
    return np.broadcast_to(r.reshape(view), shape)


iota_p = def_primitive(
    "iota", abstract_eval=_iota_abstract_eval, impl=_iota_impl, jvp=ZERO_JVP,
    transpose=NONLINEAR,
    batch=unsupported("iota has no operands, so it is never batched"),
    lower=lambda ctx, *, dtype, shape, dimension, sharding: ctx.fn.op1(
        "stablehlo.iota", [], ctx.avals_out[0], f"iota_dimension = {dimension} : i64"))


def iota(dtype, size: int):
    dtype = dtypes.canonicalize_dtype(np.dtype(dtype))
    return iota_p.bind(dtype=dtype, shape=(operator.index(size),), dimension=0, sharding=None)


def broadcasted_iota(dtype, shape, dimension: int):
    dtype = dtypes.canonicalize_dtype(np.dtype(dtype))
    shape = _shape_tuple(shape)
    return iota_p.bind(dtype=dtype, shape=shape, dimension=int(dimension), sharding=None)


def reduce_sum(x, axes):
    from didax._src.lax.reductions import reduce_sum as impl  # noqa: PLC0415

    return impl(x, axes)


# --- helpers the batching interpreter needs from this layer
def _moveaxis(x, src, dst):
    nd = np.ndim(x)
    perm = [i for i in range(nd) if i != src]
    perm.insert(dst, src)
    return transpose_p.bind(x, permutation=tuple(perm))


def _broadcast_batch(x, size, axis):
    shape = list(np.shape(x))
    shape.insert(axis, size)
    dims = tuple(np.delete(np.arange(len(shape)), axis))
    return broadcast_in_dim_p.bind(x, shape=tuple(shape), broadcast_dimensions=dims,
                                   sharding=None)


batching.lax_ops["moveaxis"] = _moveaxis
batching.lax_ops["broadcast_batch"] = _broadcast_batch
batching.lax_ops["broadcast_in_dim"] = lambda x, shape, dims: broadcast_in_dim_p.bind(
    x, shape=tuple(shape), broadcast_dimensions=tuple(dims), sharding=None)
batching.lax_ops["reduce_sum"] = lambda x, axes: reduce_sum(x, axes)
batching.lax_ops["expand_dims"] = lambda x, dims: expand_dims(x, dims)

# lax.lax's JVP/transpose rules call these; bind them directly (no per-call import).
lax.broadcast_in_dim = broadcast_in_dim
lax.full_like = full_like
lax.full = full
lax.reshape = reshape


# dynamic_slice / dynamic_update_slice live in lax.dynamic_slicing (which uses the
# helpers above); re-exported here.
from didax._src.lax import dynamic_slicing as _ds  # noqa: E402

_check_index_dtypes = _ds._check_index_dtypes
_check_indices = _ds._check_indices
_clamped_starts = _ds._clamped_starts
_ds_abstract_eval = _ds._ds_abstract_eval
_ds_batch = _ds._ds_batch
_ds_impl = _ds._ds_impl
_ds_jvp = _ds._ds_jvp
_ds_lower = _ds._ds_lower
_ds_transpose = _ds._ds_transpose
_dus_abstract_eval = _ds._dus_abstract_eval
_dus_batch = _ds._dus_batch
_dus_impl = _ds._dus_impl
_dus_jvp = _ds._dus_jvp
_dus_transpose = _ds._dus_transpose
_index_dtype = _ds._index_dtype
_index_dtypes = _ds._index_dtypes
_normalize_index = _ds._normalize_index
_zero_index_like = _ds._zero_index_like
builtins_slice = _ds.builtins_slice
dynamic_index_in_dim = _ds.dynamic_index_in_dim
dynamic_slice = _ds.dynamic_slice
dynamic_slice_in_dim = _ds.dynamic_slice_in_dim
dynamic_slice_p = _ds.dynamic_slice_p
dynamic_update_index_in_dim = _ds.dynamic_update_index_in_dim
dynamic_update_slice = _ds.dynamic_update_slice
dynamic_update_slice_in_dim = _ds.dynamic_update_slice_in_dim
dynamic_update_slice_p = _ds.dynamic_update_slice_p
