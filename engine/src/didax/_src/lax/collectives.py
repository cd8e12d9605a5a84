"""More collectives over named axes, as JAX's `jax.lax`: `ppermute`, `psum_scatter`,
`all_to_all`, `pvary`/`pcast` and `axis_size`.

Like psum and all_gather (lax/parallel.py), each is a primitive whose batching rule, for
the named axis a vmap (or shard_map's emulation, one vmap per mesh axis) binds, rewrites it
into ordinary array operations over the batch dimension: ppermute picks the block each
member receives, psum_scatter sums and splits, all_to_all exchanges chunks with a
transpose, pvary broadcasts a value shared by every member. Each is linear, with JAX's
transposes (ppermute: the inverse permutation; psum_scatter: all_gather; all_to_all: the
exchange back; pvary: psum). Outside a binding of the axis they raise JAX's NameError; in a
pmap replica program ppermute lowers to `stablehlo.collective_permute`.

May import core, the interpreters, lax._define, lax.shapes, lax.parallel.
"""

from __future__ import annotations

import math

import numpy as np

from didax._src.core import ShapedArray
from didax._src.interpreters import ad, batching, lowering
from didax._src.lax import shapes
from didax._src.lax._define import def_primitive
from didax._src.lax.parallel import (
    _axes_tuple,
    _replica_groups,
    all_gather_p,
    axis_size,
    no_index_groups,
    psum_p,
)
from didax._src.tree_util import tree_map


def _unbound(name):
    def impl(*args, axis_name, **_):
        raise NameError(f"Found an unbound axis name: {axis_name[0]}. To fix this, please "
                        f"call {name} under `jax.shard_map`.")
    return impl


def _at_front(axis_data, x, d):
    """x batched along dimension 0 (broadcast when it is shared by every member)."""
    if d is None:
        return batching.broadcast(x, axis_data.size, 0)
    return batching.moveaxis(x, d, 0)


def _only_axis(axis_data, axis_name, what):
    if len(axis_name) > 1:
        raise NotImplementedError(f"{what} over several named axes at once under vmap or "
                                  f"shard_map; call it once per axis instead")


# ----------------------------------------------------------------------------------------
# ppermute
# ----------------------------------------------------------------------------------------


def _ppermute_batch(axis_data, vals, dims, *, axis_name, perm):
    (x,), (d,) = vals, dims
    if axis_data.name not in axis_name:
        if d is None:
            return ppermute_p.bind(x, axis_name=axis_name, perm=perm), None
        return ppermute_p.bind(x, axis_name=axis_name, perm=perm), d
    _only_axis(axis_data, axis_name, "ppermute")
    x = _at_front(axis_data, x, d)
    pieces = shapes.split(x, (1,) * axis_data.size, 0)
    source = {dst: src for src, dst in perm}
    zero = None
    out = []
    for k in range(axis_data.size):
        if k in source:
            out.append(pieces[source[k]])
        else:
            zero = shapes.zeros_like_array(pieces[0]) if zero is None else zero
            out.append(zero)
    return shapes.concatenate(out, 0), 0


def _ppermute_lower(ctx, x, *, axis_name, perm):
    _replica_groups(ctx, axis_name, "ppermute")
    pairs = ", ".join(f"[{s}, {d}]" for s, d in perm)
    return ctx.fn.op1("stablehlo.collective_permute", [x], ctx.avals_out[0],
                      f"source_target_pairs = dense<[{pairs}]> : tensor<{len(perm)}x2xi64>")


ppermute_p = def_primitive(
    "ppermute", abstract_eval=lambda x, **_: x, impl=None,
    eager_impl=_unbound("ppermute"), jvp=None, transpose=None, batch=_ppermute_batch,
    lower=_ppermute_lower)
ad.deflinear(ppermute_p, lambda ct, x, *, axis_name, perm: [ppermute_p.bind(
    ct, axis_name=axis_name, perm=tuple((d, s) for s, d in perm))])
batching.axis_primitive_batchers[ppermute_p] = _ppermute_batch


def ppermute(x, axis_name, perm):
    """Each member's x sent to another: `perm` lists (source, destination) index pairs;
    members no pair sends to receive zeros."""
    names = _axes_tuple(axis_name)
    size = math.prod(axis_size(a, "ppermute") for a in names)
    perm = tuple((int(s), int(d)) for s, d in perm)
    srcs, dsts = zip(*perm) if perm else ((), ())
    if len(set(srcs)) != len(srcs) or len(set(dsts)) != len(dsts):
        raise ValueError(f"ppermute sources and destinations must be unique, got {perm}.")
    for s, d in perm:
        if not (0 <= s < size and 0 <= d < size):
            raise ValueError(f"ppermute perm indices must be in [0, {size}), got ({s}, {d})")
    return tree_map(lambda v: ppermute_p.bind(v, axis_name=names, perm=perm), x)


# ----------------------------------------------------------------------------------------
# psum_scatter (JAX's reduce_scatter primitive)
# ----------------------------------------------------------------------------------------


def _scatter_shape(shape, dim, size, tiled):
    shape = list(shape)
    if tiled:
        shape[dim] //= size
    else:
        del shape[dim]
    return tuple(shape)


def _reduce_scatter_abstract_eval(x, *, axis_name, scatter_dimension, axis_size, tiled):
    return ShapedArray(_scatter_shape(x.shape, scatter_dimension, axis_size, tiled), x.dtype,
                       x.weak_type)


def _reduce_scatter_batch(axis_data, vals, dims, *, axis_name, scatter_dimension, axis_size,
                          tiled):
    (x,), (d,) = vals, dims
    params = dict(axis_name=axis_name, axis_size=axis_size, tiled=tiled)
    if axis_data.name not in axis_name:
        if d is None:
            return reduce_scatter_p.bind(x, scatter_dimension=scatter_dimension,
                                         **params), None
        dim = scatter_dimension + (scatter_dimension >= d)
        out = reduce_scatter_p.bind(x, scatter_dimension=dim, **params)
        return out, d - (not tiled and dim < d)
    _only_axis(axis_data, axis_name, "psum_scatter")
    n = axis_data.size
    if d is None:
        summed = x * n
    else:
        from didax._src.lax.reductions import reduce_sum  # noqa: PLC0415

        summed = reduce_sum(batching.moveaxis(x, d, 0), (0,))
    dim = scatter_dimension
    if tiled:
        shape = list(np.shape(summed))
        shape[dim:dim + 1] = [n, shape[dim] // n]
        summed = shapes.reshape(summed, tuple(shape))
    return summed, dim


def _reduce_scatter_transpose(ct, x, *, axis_name, scatter_dimension, axis_size, tiled):
    return [all_gather_p.bind(ct, all_gather_dimension=scatter_dimension,
                              axis_index_groups=None, axis_name=axis_name,
                              axis_size=axis_size, tiled=tiled)]


def _reduce_scatter_lower(ctx, x, *, axis_name, scatter_dimension, axis_size, tiled):
    """In a pmap replica program: stablehlo.reduce_scatter (then the block's unit
    dimension dropped, untiled)."""
    groups = _replica_groups(ctx, axis_name, "psum_scatter")
    shape = list(x.aval.shape)
    shape[scatter_dimension] //= axis_size
    block = ShapedArray(tuple(shape), x.aval.dtype)
    region = lowering.reducer_region(ctx.fn, "stablehlo.add", x.aval.dtype)
    out = ctx.fn.op1("stablehlo.reduce_scatter", [x], block,
                     f"scatter_dimension = {scatter_dimension} : i64, {groups}", [region])
    if tiled:
        return out
    return ctx.fn.op1("stablehlo.reshape", [out], ctx.avals_out[0])


reduce_scatter_p = def_primitive(
    "reduce_scatter", abstract_eval=_reduce_scatter_abstract_eval, impl=None,
    eager_impl=_unbound("psum_scatter"), jvp=None, transpose=None,
    batch=_reduce_scatter_batch, lower=_reduce_scatter_lower)
ad.deflinear(reduce_scatter_p, _reduce_scatter_transpose)
batching.axis_primitive_batchers[reduce_scatter_p] = _reduce_scatter_batch


def psum_scatter(x, axis_name, *, scatter_dimension=0, axis_index_groups=None,
                 tiled=False):
    """psum, of which each member keeps one block along `scatter_dimension` (its index's)."""
    no_index_groups("psum_scatter", axis_index_groups)
    names = _axes_tuple(axis_name)
    size = math.prod(axis_size(a, "psum_scatter") for a in names)

    def one(v):
        dim = int(scatter_dimension) % max(np.ndim(v), 1)
        n = np.shape(v)[dim]
        if tiled and n % size:
            raise ValueError(f"psum_scatter: dimension {dim} of size {n} is not divisible by "
                             f"the axis size {size}")
        if not tiled and n != size:
            raise ValueError(f"psum_scatter: dimension {dim} has size {n}, but the axis "
                             f"size is {size} (use tiled=True to split it in blocks)")
        return reduce_scatter_p.bind(v, axis_name=names, scatter_dimension=dim,
                                     axis_size=size, tiled=bool(tiled))

    return tree_map(one, x)


# ----------------------------------------------------------------------------------------
# all_to_all
# ----------------------------------------------------------------------------------------


def _a2a_abstract_eval(x, *, axis_name, split_axis, concat_axis, axis_size):
    shape = list(x.shape)
    shape[split_axis] //= axis_size
    shape[concat_axis] *= axis_size
    return ShapedArray(tuple(shape), x.dtype, x.weak_type)


def _a2a_batch(axis_data, vals, dims, *, axis_name, split_axis, concat_axis, axis_size):
    (x,), (d,) = vals, dims
    if axis_data.name not in axis_name:
        if d is None:
            return all_to_all_p.bind(x, axis_name=axis_name, split_axis=split_axis,
                                     concat_axis=concat_axis, axis_size=axis_size), None
        return all_to_all_p.bind(x, axis_name=axis_name,
                                 split_axis=split_axis + (split_axis >= d),
                                 concat_axis=concat_axis + (concat_axis >= d),
                                 axis_size=axis_size), d
    _only_axis(axis_data, axis_name, "all_to_all")
    n = axis_data.size
    x = _at_front(axis_data, x, d)  # (source, *block)
    shape = list(np.shape(x))
    sa, ca = split_axis + 1, concat_axis + 1
    shape[sa:sa + 1] = [n, shape[sa] // n]
    y = shapes.reshape(x, tuple(shape))  # (source, ..., destination, chunk, ...)
    y = batching.moveaxis(y, sa, 0)  # (destination, source, *chunk block)
    y = batching.moveaxis(y, 1, ca)  # the sources just before the concatenated dimension
    shape = list(np.shape(y))
    shape[ca:ca + 2] = [shape[ca] * shape[ca + 1]]
    return shapes.reshape(y, tuple(shape)), 0


def _a2a_transpose(ct, x, *, axis_name, split_axis, concat_axis, axis_size):
    return [all_to_all_p.bind(ct, axis_name=axis_name, split_axis=concat_axis,
                              concat_axis=split_axis, axis_size=axis_size)]


def _a2a_lower(ctx, x, *, axis_name, split_axis, concat_axis, axis_size):
    groups = _replica_groups(ctx, axis_name, "all_to_all")
    return ctx.fn.op1("stablehlo.all_to_all", [x], ctx.avals_out[0],
                      f"split_dimension = {split_axis} : i64, concat_dimension = "
                      f"{concat_axis} : i64, split_count = {axis_size} : i64, {groups}")


all_to_all_p = def_primitive(
    "all_to_all", abstract_eval=_a2a_abstract_eval, impl=None,
    eager_impl=_unbound("all_to_all"), jvp=None, transpose=None, batch=_a2a_batch,
    lower=_a2a_lower)
ad.deflinear(all_to_all_p, _a2a_transpose)
batching.axis_primitive_batchers[all_to_all_p] = _a2a_batch


def all_to_all(x, axis_name, split_axis, concat_axis, *, axis_index_groups=None,
               tiled=False):
    """Each member splits x along split_axis into one chunk per member, sends chunk j to
    member j, and concatenates what it receives along concat_axis (stacks it, untiled)."""
    no_index_groups("all_to_all", axis_index_groups)
    names = _axes_tuple(axis_name)
    size = math.prod(axis_size(a, "all_to_all") for a in names)

    def one(v):
        sa, ca = int(split_axis), int(concat_axis)
        n = np.shape(v)[sa]
        if tiled and n % size:
            raise ValueError(f"all_to_all: the split axis {sa} of size {n} is not divisible "
                             f"by the axis size {size}")
        if not tiled:
            if n != size:
                raise ValueError(f"all_to_all: the split axis {sa} has size {n}, but the "
                                 f"axis size is {size}")
            if sa < ca:
                ca += 1
                v = shapes.expand_dims(v, (ca,))
            elif ca < sa:
                v = shapes.expand_dims(v, (ca,))
                sa += 1
        out = all_to_all_p.bind(v, axis_name=names, split_axis=sa, concat_axis=ca,
                                axis_size=size)
        if not tiled and sa != ca:
            out = shapes.squeeze(out, (sa,))
        return out

    return tree_map(one, x)


# ----------------------------------------------------------------------------------------
# pvary / pcast and axis_size
# ----------------------------------------------------------------------------------------


def _pvary_batch(axis_data, vals, dims, *, axes):
    (x,), (d,) = vals, dims
    if axis_data.name not in axes:
        return pvary_p.bind(x, axes=axes), d
    rest = tuple(a for a in axes if a != axis_data.name)
    if d is None:
        x, d = batching.broadcast(x, axis_data.size, 0), 0
    return (pvary_p.bind(x, axes=rest) if rest else x), d


pvary_p = def_primitive(
    "pvary", abstract_eval=lambda x, **_: x, impl=None,
    eager_impl=lambda x, *, axes: _unbound("pvary")(axis_name=axes),
    jvp=None, transpose=None, batch=_pvary_batch,
    lower=lambda ctx, x, *, axes: x)
ad.deflinear(pvary_p, lambda ct, x, *, axes: [
    psum_p.bind(ct, axes=axes, axis_index_groups=None)[0]])
batching.axis_primitive_batchers[pvary_p] = _pvary_batch


def pvary(x, axis_name):
    """x marked as varying over the named axes (each member's copy may now differ)."""
    names = _axes_tuple(axis_name)
    if not names:
        return x
    for a in names:
        axis_size(a, "pvary")
    return tree_map(lambda v: pvary_p.bind(v, axes=names), x)


def pcast(x, axis_name, *, to):
    """Casts between shard_map's per-axis types; `to='varying'` is pvary."""
    if to == "varying":
        return pvary(x, axis_name)
    raise NotImplementedError(f"jax.lax.pcast(..., to={to!r}) is not supported by didax; "
                              "only to='varying' (use jax.lax.psum to make values invariant)")


def axis_size_of(axis_name) -> int:
    """`jax.lax.axis_size`: the size of the named axis (the product, for a tuple of names)."""
    return math.prod(axis_size(a, "axis_size") for a in _axes_tuple(axis_name))


# ----------------------------------------------------------------------------------------
# psum_invariant: psum as a shard_map body with check_vma stages it
# ----------------------------------------------------------------------------------------


def _psum_invariant_batch(axis_data, vals, dims, *, axes):
    from didax._src.lax.parallel import _psum_rule  # noqa: PLC0415

    outs, out_dims = _psum_rule(axis_data, vals, dims, axes=axes, axis_index_groups=None)
    return outs[0], out_dims[0]


psum_invariant_p = def_primitive(
    "psum_invariant", abstract_eval=lambda x, **_: x, impl=None,
    eager_impl=lambda x, *, axes: _unbound("psum")(axis_name=axes),
    jvp=None, transpose=None, batch=_psum_invariant_batch,
    lower=lambda ctx, x, *, axes: _psum_lowering(ctx, x, axes))
ad.deflinear(psum_invariant_p, lambda ct, x, *, axes: [pvary_p.bind(ct, axes=axes)])
batching.axis_primitive_batchers[psum_invariant_p] = _psum_invariant_batch


def _psum_lowering(ctx, x, axes):
    from didax._src.interpreters import lowering  # noqa: PLC0415

    return lowering.lowerings[psum_p](ctx, x, axes=axes, axis_index_groups=None)[0]
