"""The sort primitive of `didax.lax` (multi-operand, stable, num_keys lexicographic keys;
complex keys ordered by real then imaginary part, as JAX) with all its rules, and
lax.sort / lax.sort_key_val.

May import core, dtypes, the interpreters, lax._define, lax.lax and lax.shapes.
"""

from __future__ import annotations

import numpy as np

from didax._src import dtypes
from didax._src.core import ShapedArray
from didax._src.interpreters import batching, lowering
from didax._src.interpreters.ad import Zero
from didax._src.lax import shapes
from didax._src.lax._define import NONLINEAR, def_primitive

# ----------------------------------------------------------------------------------------
# sort
# ----------------------------------------------------------------------------------------


def _sort_abstract_eval(*operands, dimension, is_stable, num_keys):
    shape = operands[0].shape
    if any(o.shape != shape for o in operands):
        raise TypeError(f"Arguments to sort must have equal shapes, got: "
                        f"{' '.join(str(o.shape) for o in operands)}")
    if not 0 <= dimension < max(len(shape), 1):
        raise ValueError(f"dimension {dimension} out of bounds for shape {shape}")
    return [ShapedArray(o.shape, o.dtype, o.weak_type) for o in operands]


def _sort_key(x):
    """A key ordering like XLA's total order: -NaN < -inf < ... < -0 < 0 < ... < NaN."""
    if dtypes.is_complex(x.dtype):
        return [np.imag(x), np.real(x)]
    return [x]


def _sort_impl(*operands, dimension, is_stable, num_keys):
    keys = operands[:num_keys]
    if operands[0].ndim == 0:
        return list(operands)
    moved = [np.moveaxis(o, dimension, -1) for o in operands]
    lex = []
    for k in reversed([np.moveaxis(k, dimension, -1) for k in keys]):
        lex.extend(_sort_key(k))
    perm = np.lexsort(lex, axis=-1) if len(lex) > 1 else np.argsort(lex[0], axis=-1,
                                                                     kind="stable")
    outs = [np.take_along_axis(m, perm, axis=-1) for m in moved]
    return [np.moveaxis(o, -1, dimension) for o in outs]


def _index_dtype_for_shape(shape):
    """Unsigned index dtype wide enough for every dimension (as JAX picks it)."""
    return np.dtype(np.uint64 if any(d > np.iinfo(np.uint32).max for d in shape)
                    else np.uint32)


def _sort_jvp(primals, tangents, *, dimension, is_stable, num_keys):
    """Sort with an iota riding along; tangents are gathered with the permutation."""
    from didax._src.lax import slicing  # noqa: PLC0415 - slicing imports this module

    shape = np.shape(primals[0])
    iota = shapes.broadcasted_iota(_index_dtype_for_shape(shape), shape, dimension)
    outs = sort_p.bind(*primals, iota, dimension=dimension, is_stable=is_stable,
                       num_keys=num_keys)
    batch_dims = tuple(np.delete(np.arange(len(shape), dtype=np.int64), dimension))
    dnums = slicing.GatherDimensionNumbers(
        offset_dims=(), collapsed_slice_dims=(dimension,), start_index_map=(dimension,),
        operand_batching_dims=batch_dims, start_indices_batching_dims=batch_dims)
    idx = shapes.expand_dims(outs[-1], (len(shape),))
    t_out = [Zero.from_primal_value(p) if type(t) is Zero else
             slicing.gather(t, idx, dnums, (1,) * len(shape), mode="promise_in_bounds")
             for t, p in zip(tangents, outs[:-1])]
    return outs[:-1], t_out


def _sort_batch(axis_data, vals, dims, *, dimension, is_stable, num_keys):
    """The batch dim stays where the first batched operand has it; unbatched operands
    are broadcast to match."""
    proto, bdim = next((v, d) for v, d in zip(vals, dims) if d is not None)
    pshape = np.shape(proto)
    new_vals = []
    for v, d in zip(vals, dims):
        if d is None:
            keep = [int(i) for i in np.delete(np.arange(len(pshape)), bdim)]
            new_vals.append(shapes.broadcast_in_dim(v, pshape, keep))
        else:
            new_vals.append(batching.moveaxis(v, d, bdim))
    outs = sort_p.bind(*new_vals, dimension=dimension + (bdim <= dimension),
                       is_stable=is_stable, num_keys=num_keys)
    return outs, [bdim] * len(outs)


def _sort_lower(ctx, *xs, dimension, is_stable, num_keys):
    fn = ctx.fn
    scalars = [ShapedArray((), x.aval.dtype) for x in xs]

    def keys(b, args):  # (x, y) pairs; a complex key: its real, then imaginary part (JAX)
        out = []
        for x, y in ((args[2 * k], args[2 * k + 1]) for k in range(num_keys)):
            cplx = dtypes.is_complex(x.aval.dtype)
            part = ShapedArray((), dtypes.real_dtype(x.aval.dtype)) if cplx else None
            out += ([(b.op1(f"stablehlo.{op}", [x], part), b.op1(f"stablehlo.{op}", [y], part))
                     for op in ("real", "imag")] if cplx else [(x, y)])
        return out

    def body(b, args):
        lt = eq = None
        for a1, a2 in keys(b, args):
            ctype = "TOTALORDER" if dtypes.is_float(a1.aval.dtype) else None
            this_lt = lowering.compare_op(b, a1, a2, "LT", ctype=ctype)
            if lt is None:
                lt, eq = this_lt, lowering.compare_op(b, a1, a2, "EQ", ctype=ctype)
            else:
                both = b.op1("stablehlo.and", [eq, this_lt], lt.aval)
                lt = b.op1("stablehlo.or", [lt, both], lt.aval)
                eq = b.op1("stablehlo.and",
                           [eq, lowering.compare_op(b, a1, a2, "EQ", ctype=ctype)], lt.aval)
        return [lt]

    arg_avals = [a for s in scalars for a in (s, s)]
    region = fn.region(arg_avals, body)
    stable = "true" if is_stable else "false"
    return fn.op("stablehlo.sort", xs, [x.aval for x in xs],
                 f"dimension = {dimension} : i64, is_stable = {stable}", [region])


sort_p = def_primitive(
    "sort", abstract_eval=_sort_abstract_eval, impl=_sort_impl, jvp=_sort_jvp,
    transpose=NONLINEAR, batch=_sort_batch, lower=_sort_lower, multiple_results=True)


def sort(operand, dimension: int = -1, is_stable: bool = True, num_keys: int = 1):
    if isinstance(operand, (tuple, list)):
        ops = list(operand)
        dimension = shapes.canonicalize_axis(dimension, max(np.ndim(ops[0]), 1))
        return tuple(sort_p.bind(*ops, dimension=dimension, is_stable=bool(is_stable),
                                 num_keys=int(num_keys)))
    dimension = shapes.canonicalize_axis(dimension, max(np.ndim(operand), 1))
    return sort_p.bind(operand, dimension=dimension, is_stable=bool(is_stable),
                       num_keys=1)[0]


def sort_key_val(keys, values, dimension: int = -1, is_stable: bool = True):
    dimension = shapes.canonicalize_axis(dimension, max(np.ndim(keys), 1))
    k, v = sort_p.bind(keys, values, dimension=dimension, is_stable=is_stable, num_keys=1)
    return k, v
