"""Gather and scatter primitives of `didax.lax` — `gather`, `scatter`, `scatter-add`,
`scatter-sub`, `scatter-mul`, `scatter-min`, `scatter-max` — each declared once with all its
rules, plus the `lax.gather` / `lax.scatter*` wrappers with JAX's signatures,
`take_along_axis` (sort's JVP) and the batched dynamic_slice / dynamic_update_slice helpers
that `lax.shapes` delegates to when start indices are batched.

Shape rules and the eager NumPy evaluation live in `lax._slicing_np`.
May import core, dtypes, the interpreters, lax._define, lax.lax, lax.shapes, lax.reductions.
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from didax._src import core
from didax._src.core import ShapedArray
from didax._src.interpreters import ad, batching, lowering
from didax._src.interpreters import partial_eval as pe
from didax._src.interpreters.ad import Zero
from didax._src.lax import lax, reductions, shapes
from didax._src.lax._define import NONLINEAR, def_primitive
from didax._src.lax._slicing_np import (
    GatherDimensionNumbers,
    GatherScatterMode,
    ScatterDimensionNumbers,
    canonical_gather_dnums,
    canonical_scatter_dnums,
    default_fill_value,
    gather_abstract_eval,
    gather_impl,
    scatter_abstract_eval,
    scatter_impl,
    scatter_window_sizes,
)

_PROMISE = GatherScatterMode.PROMISE_IN_BOUNDS
_FILL = GatherScatterMode.FILL_OR_DROP
_CLIP = GatherScatterMode.CLIP


# ----------------------------------------------------------------------------------------
# gather
# ----------------------------------------------------------------------------------------


def gather(operand, start_indices, dimension_numbers, slice_sizes, *,
           unique_indices: bool = False, indices_are_sorted: bool = False, mode=None,
           fill_value=None):
    """XLA's gather. mode None means PROMISE_IN_BOUNDS; FILL_OR_DROP fills with fill_value
    (NaN / the integer extreme / True by default)."""
    parsed = _PROMISE if mode is None else GatherScatterMode.from_any(mode)
    if parsed == _FILL:
        if fill_value is None:
            fill_value = default_fill_value(core.get_aval(operand).dtype)
    else:
        fill_value = None
    return gather_p.bind(
        operand, start_indices, dimension_numbers=canonical_gather_dnums(dimension_numbers),
        slice_sizes=tuple(operator.index(s) for s in slice_sizes),
        unique_indices=bool(unique_indices), indices_are_sorted=bool(indices_are_sorted),
        mode=parsed, fill_value=fill_value)


def _scatter_to_gather_dnums(dn) -> GatherDimensionNumbers:
    return GatherDimensionNumbers(
        offset_dims=dn.update_window_dims, collapsed_slice_dims=dn.inserted_window_dims,
        start_index_map=dn.scatter_dims_to_operand_dims,
        operand_batching_dims=dn.operand_batching_dims,
        start_indices_batching_dims=dn.scatter_indices_batching_dims)


def _gather_to_scatter_dnums(dn) -> ScatterDimensionNumbers:
    return ScatterDimensionNumbers(
        update_window_dims=dn.offset_dims, inserted_window_dims=dn.collapsed_slice_dims,
        scatter_dims_to_operand_dims=dn.start_index_map,
        operand_batching_dims=dn.operand_batching_dims,
        scatter_indices_batching_dims=dn.start_indices_batching_dims)


def _gather_jvp(g, operand, indices, *, dimension_numbers, slice_sizes, unique_indices,
                indices_are_sorted, mode, fill_value):
    return gather(g, indices, dimension_numbers, slice_sizes, unique_indices=unique_indices,
                  indices_are_sorted=indices_are_sorted, mode=mode, fill_value=0)


def _gather_transpose(ct, operand, indices, *, dimension_numbers, slice_sizes,
                      unique_indices, indices_are_sorted, mode, fill_value):
    if type(ct) is Zero:
        return [Zero(operand.aval), None]
    zeros = shapes.full(operand.aval.shape, 0, core.get_aval(ct).dtype)
    out = scatter_add(zeros, indices, ct, _gather_to_scatter_dnums(dimension_numbers),
                      unique_indices=unique_indices, indices_are_sorted=indices_are_sorted,
                      mode=mode)
    return [out, None]


def _shift(dims, k=1):
    return tuple(d + k for d in dims)


def _gather_batch(axis_data, vals, dims, *, dimension_numbers, slice_sizes, unique_indices,
                  indices_are_sorted, mode, fill_value):
    (operand, indices), (od, idd) = vals, dims
    dn = dimension_numbers
    kw = dict(mode=mode, fill_value=fill_value)
    if idd is None:
        operand = batching.moveaxis(operand, od, 0)
        new = GatherDimensionNumbers(
            (0, *_shift(dn.offset_dims)), _shift(dn.collapsed_slice_dims),
            _shift(dn.start_index_map), _shift(dn.operand_batching_dims),
            dn.start_indices_batching_dims)
        sizes = (np.shape(operand)[0], *slice_sizes)
        return gather(operand, indices, new, sizes, unique_indices=unique_indices,
                      indices_are_sorted=indices_are_sorted, **kw), 0
    indices = batching.moveaxis(indices, idd, 0)
    if od is None:
        new = dn._replace(offset_dims=_shift(dn.offset_dims),
                          start_indices_batching_dims=_shift(dn.start_indices_batching_dims))
        return gather(operand, indices, new, slice_sizes, **kw), 0
    operand = batching.moveaxis(operand, od, 0)
    new = GatherDimensionNumbers(
        _shift(dn.offset_dims), _shift(dn.collapsed_slice_dims), _shift(dn.start_index_map),
        (0, *_shift(dn.operand_batching_dims)), (0, *_shift(dn.start_indices_batching_dims)))
    sizes = (0 if np.shape(operand)[0] == 0 else 1, *slice_sizes)
    return gather(operand, indices, new, sizes, unique_indices=unique_indices,
                  indices_are_sorted=indices_are_sorted, **kw), 0


def _dnums_attr(kind: str, fields, index_vector_dim: int) -> str:
    parts = [f"{k} = [{', '.join(map(str, v))}]" for k, v in fields if len(v)]
    parts.append(f"index_vector_dim = {index_vector_dim}")
    return f"#stablehlo.{kind}<{', '.join(parts)}>"


def _emit_gather(fn, operand, indices, dn, slice_sizes, sorted_, out_aval):
    if core._prod(out_aval.shape) == 0:
        return _zeros_value(fn, out_aval)
    fields = [("offset_dims", dn.offset_dims), ("collapsed_slice_dims", dn.collapsed_slice_dims),
              ("operand_batching_dims", dn.operand_batching_dims),
              ("start_indices_batching_dims", dn.start_indices_batching_dims),
              ("start_index_map", dn.start_index_map)]
    attr = _dnums_attr("gather", fields, indices.aval.ndim - 1)
    attrs = (f"dimension_numbers = {attr}, indices_are_sorted = {str(sorted_).lower()}, "
             f"slice_sizes = {lowering.i64_array(slice_sizes)}")
    return fn.op1("stablehlo.gather", [operand, indices], out_aval, attrs)


def _zeros_value(fn, aval):
    scalar = fn.const(np.zeros((), aval.dtype), ShapedArray((), aval.dtype))
    return fn.op1("stablehlo.broadcast_in_dim", [scalar], aval, "broadcast_dimensions = "
                  "array<i64>")


def lower_traced(ctx, fun, *values):
    """Lowers fun (written with lax ops) inline, as `mlir.lower_fun` does in JAX."""
    jaxpr, _, consts = pe.trace_to_jaxpr_dynamic(lambda *xs: [fun(*xs)],
                                                 [v.aval for v in values], "lowering")
    return lowering.lower_jaxpr_body(ctx.fn, jaxpr, consts, list(values))[0]


def _index_dtype_for(shape):
    return np.dtype(np.int64) if any(d >= 2**31 for d in shape) else np.dtype(np.int32)


def _gather_fill(operand, indices, *, dimension_numbers, slice_sizes, indices_are_sorted,
                 fill_value, out_shape):
    """A FILL_OR_DROP gather as an in-bounds gather whose out-of-range windows are masked."""
    dn = dimension_numbers
    op_shape = np.shape(operand)
    idx_dt = _index_dtype_for(op_shape)
    indices = lax.convert_element_type(indices, idx_dt)
    nb = np.ndim(indices) - 1
    upper = np.array([op_shape[d] - slice_sizes[d] for d in dn.start_index_map], idx_dt)
    upper = shapes.broadcast_in_dim(upper, np.shape(indices), (nb,))
    ok = lax.bitwise_and(lax.ge(indices, np.zeros((), idx_dt)), lax.le(indices, upper))
    ok = reductions.reduce_and(ok, (nb,))
    out = gather(operand, indices, dn, slice_sizes, indices_are_sorted=indices_are_sorted,
                 mode=_PROMISE)
    batch_out = tuple(d for d in range(len(out_shape)) if d not in dn.offset_dims)
    fill = shapes.full(out_shape, fill_value, core.get_aval(out).dtype)
    return lax.select(shapes.broadcast_in_dim(ok, out_shape, batch_out), out, fill)


def _gather_lower(ctx, operand, indices, *, dimension_numbers, slice_sizes, unique_indices,
                  indices_are_sorted, mode, fill_value):
    out_aval = ctx.avals_out[0]
    if mode == _FILL:
        fill = default_fill_value(out_aval.dtype) if fill_value is None else fill_value
        fun = functools.partial(_gather_fill, dimension_numbers=dimension_numbers,
                                slice_sizes=slice_sizes, indices_are_sorted=indices_are_sorted,
                                fill_value=fill, out_shape=out_aval.shape)
        return lower_traced(ctx, fun, operand, indices)
    return _emit_gather(ctx.fn, operand, indices, dimension_numbers, slice_sizes,
                        indices_are_sorted, out_aval)


gather_p = def_primitive(
    "gather", abstract_eval=gather_abstract_eval, impl=gather_impl,
    jvp=(_gather_jvp, None), transpose=_gather_transpose, batch=_gather_batch,
    lower=_gather_lower, linear="joint")


# ----------------------------------------------------------------------------------------
# scatter family
# ----------------------------------------------------------------------------------------


@functools.cache
def _combiner_jaxpr(name: str, dtype) -> core.Jaxpr:
    """The scalar update computation `{ lambda ; a b. let c = op a b in (c,) }`."""
    fn = {"add": lax.add, "sub": lax.sub, "mul": lax.mul, "min": lax.min,
          "max": lax.max}[name]
    aval = ShapedArray((), np.dtype(dtype))
    with core.set_current_trace(core.eval_trace):
        jaxpr, _, consts = pe.trace_to_jaxpr_dynamic(lambda x, y: [fn(x, y)], [aval, aval],
                                                     "scatter")
    assert not consts
    return jaxpr


def _bind_scatter(prim, combiner, operand, indices, updates, dimension_numbers,
                  indices_are_sorted, unique_indices, mode, *, parse_default=_FILL):
    dt = core.get_aval(operand).dtype
    jaxpr = None if combiner is None else _combiner_jaxpr(combiner, dt)
    parsed = parse_default if mode is None else GatherScatterMode.from_any(mode)
    return prim.bind(operand, indices, updates, update_jaxpr=jaxpr, update_consts=(),
                     dimension_numbers=canonical_scatter_dnums(dimension_numbers),
                     indices_are_sorted=bool(indices_are_sorted),
                     unique_indices=bool(unique_indices), mode=parsed)


def _scatter_wrapper(name, combiner):
    def wrapper(operand, scatter_indices, updates, dimension_numbers, *,
                indices_are_sorted: bool = False, unique_indices: bool = False, mode=None):
        prim = _SCATTER_PRIMS[name]
        return _bind_scatter(prim, combiner, operand, scatter_indices, updates,
                             dimension_numbers, indices_are_sorted, unique_indices, mode)
    wrapper.__name__ = name
    wrapper.__doc__ = f"XLA's scatter combining with {combiner or 'replacement'}."
    return wrapper


scatter = _scatter_wrapper("scatter", None)
scatter_add = _scatter_wrapper("scatter_add", "add")
scatter_sub = _scatter_wrapper("scatter_sub", "sub")
scatter_mul = _scatter_wrapper("scatter_mul", "mul")
scatter_min = _scatter_wrapper("scatter_min", "min")
scatter_max = _scatter_wrapper("scatter_max", "max")


def scatter_apply(operand, scatter_indices, func, dimension_numbers, *, update_shape=(),
                  indices_are_sorted: bool = False, unique_indices: bool = False, mode=None):
    """Replaces operand[idx] by func(operand[idx]) (repeated indices apply func again)."""
    dt = core.get_aval(operand).dtype
    aval = ShapedArray((), dt)
    jaxpr, _, consts = pe.trace_to_jaxpr_dynamic(lambda x, _: [func(x)], [aval, aval],
                                                 "scatter_apply")
    unused = shapes.full(update_shape, 0, dt)
    parsed = GatherScatterMode.from_any(mode)
    return scatter_p.bind(operand, scatter_indices, unused, update_jaxpr=jaxpr,
                          update_consts=tuple(consts),
                          dimension_numbers=canonical_scatter_dnums(dimension_numbers),
                          indices_are_sorted=bool(indices_are_sorted),
                          unique_indices=bool(unique_indices), mode=parsed)


def _inverse_gather(x, indices, updates_shape, dn, mode, fill_value=None):
    """Gathers from x the windows a scatter with `dn` writes (the transpose direction)."""
    sizes = scatter_window_sizes(np.shape(x), updates_shape, dn)
    return gather(x, indices, _scatter_to_gather_dnums(dn), sizes, mode=mode,
                  fill_value=fill_value)


def _shape_of(x):
    return x.aval.shape if ad.is_undefined_primal(x) else np.shape(x)


def _zero_cts(operand, updates):
    return [Zero(operand.aval) if ad.is_undefined_primal(operand) else None, None,
            Zero(updates.aval) if ad.is_undefined_primal(updates) else None]


def _addsub_jvp(prim):
    def rule(primals, tangents, **params):
        operand, indices, updates = primals
        g_op, _, g_up = tangents
        out = prim.bind(operand, indices, updates, **params)
        if type(g_op) is Zero and type(g_up) is Zero:
            return out, Zero.from_primal_value(out)
        g_op, g_up = ad.instantiate_zeros(g_op), ad.instantiate_zeros(g_up)
        return out, prim.bind(g_op, indices, g_up, **params)
    return rule


def _addsub_transpose(prim):
    def rule(ct, operand, indices, updates, *, dimension_numbers, mode, **params):
        if type(ct) is Zero:
            return _zero_cts(operand, updates)
        ct_op = ct if ad.is_undefined_primal(operand) else None
        ct_up = None
        if ad.is_undefined_primal(updates):
            ct_up = _inverse_gather(ct, indices, updates.aval.shape, dimension_numbers, mode,
                                    fill_value=0)
            if prim is scatter_sub_p:
                ct_up = lax.neg(ct_up)
        return [ct_op, None, ct_up]
    return rule


def _mul_jvp_operand(g, x, i, y, **params):
    return scatter_mul_p.bind(g, i, y, **params)


def _mul_jvp_updates(g, x, i, y, *, dimension_numbers, indices_are_sorted, unique_indices,
                     mode, **params):
    if not unique_indices:
        raise NotImplementedError(
            "scatter_mul gradients are only implemented if `unique_indices=True`")
    zeros = shapes.full_like(x, 0)
    return lax.mul(x, scatter_add(zeros, i, g, dimension_numbers,
                                  indices_are_sorted=indices_are_sorted,
                                  unique_indices=unique_indices, mode=mode))


def _mul_transpose(ct, operand, indices, updates, *, dimension_numbers, indices_are_sorted,
                   unique_indices, mode, **params):
    if type(ct) is Zero:
        return _zero_cts(operand, updates)
    ct_op = ct_up = None
    if ad.is_undefined_primal(operand):
        ct_op = scatter_mul(ct, indices, updates, dimension_numbers,
                            indices_are_sorted=indices_are_sorted,
                            unique_indices=unique_indices, mode=mode)
    if ad.is_undefined_primal(updates):
        if not unique_indices:
            raise NotImplementedError(
                "scatter_mul gradients are only implemented if `unique_indices=True`")
        ct_up = _inverse_gather(lax.mul(ct, operand), indices, updates.aval.shape,
                                dimension_numbers, mode, fill_value=0)
    return [ct_op, None, ct_up]


def _extremal_jvp(prim):
    """JVP of scatter-min/max: where several values tie for the result (the operand and/or
    several updates), the tangent is their average."""

    def rule(primals, tangents, *, dimension_numbers, indices_are_sorted, unique_indices,
             mode, **params):
        operand, indices, updates = primals
        g_op, _, g_up = tangents
        kw = dict(dimension_numbers=dimension_numbers, indices_are_sorted=indices_are_sorted,
                  unique_indices=unique_indices, mode=mode)
        out = prim.bind(operand, indices, updates, **kw, **params)
        if type(g_op) is Zero and type(g_up) is Zero:
            return out, Zero.from_primal_value(out)
        g_op, g_up = ad.instantiate_zeros(g_op), ad.instantiate_zeros(g_up)
        dn, ushape = dimension_numbers, np.shape(updates)

        def take(x):
            return _inverse_gather(x, indices, ushape, dn, None)

        def count(u):
            return take(scatter_add(shapes.full_like(operand, 0), indices, u, dn))

        won = lax.eq(updates, take(out))
        kept = lax.eq(take(operand), take(out))
        ones_u, zeros_u = shapes.full_like(updates, 1), shapes.full_like(updates, 0)
        n_won = count(lax.select(won, ones_u, zeros_u))
        n_refs = count(ones_u)
        share = lax.div(ones_u, lax.add(n_won, ones_u))
        upd_coef = lax.select(won, lax.select(kept, share, lax.div(ones_u, n_won)), zeros_u)
        op_coef = lax.div(lax.sub(lax.select(kept, share, zeros_u), ones_u), n_refs)
        t_upd = lax.add(lax.mul(take(g_op), op_coef), lax.mul(g_up, upd_coef))
        return out, scatter_add(g_op, indices, t_upd, dn, indices_are_sorted=indices_are_sorted,
                                unique_indices=unique_indices, mode=mode)
    return rule


def _scatter_jvp(primals, tangents, *, update_jaxpr, update_consts, dimension_numbers,
                 indices_are_sorted, unique_indices, mode):
    if update_jaxpr is not None:
        raise NotImplementedError("scatter_apply JVP not implemented")
    operand, indices, updates = primals
    g_op, _, g_up = tangents
    kw = dict(update_jaxpr=None, update_consts=(), dimension_numbers=dimension_numbers,
              indices_are_sorted=indices_are_sorted, unique_indices=unique_indices, mode=mode)
    if type(g_op) is Zero and type(g_up) is Zero:
        out = scatter_p.bind(operand, indices, updates, **kw)
        return out, Zero.from_primal_value(out)
    g_op, g_up = ad.instantiate_zeros(g_op), ad.instantiate_zeros(g_up)
    if unique_indices:
        return (scatter_p.bind(operand, indices, updates, **kw),
                scatter_p.bind(g_op, indices, g_up, **kw))
    return _scatter_jvp_overlapping(operand, indices, updates, g_op, g_up, dimension_numbers,
                                    indices_are_sorted, mode)


def _scatter_jvp_overlapping(operand, indices, updates, g_op, g_up, dn, indices_are_sorted,
                             mode):
    """With possibly repeated indices it is unspecified which update wins, so: tag each
    update with an id, scatter the ids, read back which id won each position, and rebuild
    both primal and tangent as scatter-adds of the masked winners (linear, so transposable)."""
    ushape = np.shape(updates)
    id_shape = [1 if d in dn.update_window_dims else s for d, s in enumerate(ushape)]
    n = core._prod(id_shape)
    id_dt = np.dtype(np.uint32) if n < 2**32 - 1 else np.dtype(np.uint64)
    ids = lax.add(shapes.reshape(shapes.iota(id_dt, n), id_shape),
                  shapes.full(ushape, 1, id_dt))
    won_ids = scatter(shapes.full(np.shape(operand), 0, id_dt), indices, ids, dn,
                      indices_are_sorted=indices_are_sorted, mode=mode)
    gathered = _inverse_gather(won_ids, indices, ushape, dn, None)

    def keep_base(base):  # operand entries no update overwrote
        untouched = lax.eq(won_ids, shapes.full_like(won_ids, 0))
        return lax.select(untouched, base, shapes.full_like(base, 0))

    def keep_winners(upd):  # the update that won each position
        return lax.select(lax.eq(ids, gathered), upd, shapes.full_like(upd, 0))

    masked = [keep_base(operand), keep_winners(updates), keep_base(g_op), keep_winners(g_up)]
    return [scatter_add(b, indices, u, dn, indices_are_sorted=indices_are_sorted, mode=mode)
            for b, u in (masked[:2], masked[2:])]


def _scatter_transpose(ct, operand, indices, updates, *, update_jaxpr, update_consts,
                       dimension_numbers, indices_are_sorted, unique_indices, mode):
    if not unique_indices:
        raise NotImplementedError("scatter transpose is only implemented where "
                                  "unique_indices=True")
    if type(ct) is Zero:
        return _zero_cts(operand, updates)
    ct_op = ct_up = None
    ushape = _shape_of(updates)
    if ad.is_undefined_primal(operand):
        ct_op = scatter(ct, indices, shapes.full(ushape, 0, core.get_aval(ct).dtype),
                        dimension_numbers, indices_are_sorted=indices_are_sorted,
                        unique_indices=True, mode=mode)
    if ad.is_undefined_primal(updates):
        ct_up = _inverse_gather(ct, indices, ushape, dimension_numbers, mode, fill_value=0)
    return [ct_op, None, ct_up]


def _scatter_batch(prim):
    def rule(axis_data, vals, dims, *, dimension_numbers, **params):
        (operand, indices, updates), (od, idd, ud) = vals, dims
        size, dn = axis_data.size, dimension_numbers
        operand = batching.bdim_at_front(operand, od, size)
        updates = batching.bdim_at_front(updates, ud, size)
        if idd is None:
            new = ScatterDimensionNumbers(
                (0, *_shift(dn.update_window_dims)), _shift(dn.inserted_window_dims),
                _shift(dn.scatter_dims_to_operand_dims), _shift(dn.operand_batching_dims),
                dn.scatter_indices_batching_dims)
        else:
            indices = batching.bdim_at_front(indices, idd, size)
            new = ScatterDimensionNumbers(
                _shift(dn.update_window_dims), _shift(dn.inserted_window_dims),
                _shift(dn.scatter_dims_to_operand_dims), (0, *_shift(dn.operand_batching_dims)),
                (0, *_shift(dn.scatter_indices_batching_dims)))
        return prim.bind(operand, indices, updates, dimension_numbers=new, **params), 0
    return rule


def _clamp_scatter_indices(operand, indices, updates, *, dimension_numbers):
    dn = dimension_numbers
    idx_dt = core.get_aval(indices).dtype
    sizes = scatter_window_sizes(np.shape(operand), np.shape(updates), dn)
    hi = int(np.iinfo(idx_dt).max)
    upper = np.array([min(np.shape(operand)[d] - sizes[d], hi)
                      for d in dn.scatter_dims_to_operand_dims], idx_dt)
    upper = shapes.broadcast_in_dim(upper, np.shape(indices), (np.ndim(indices) - 1,))
    return lax.clamp(np.zeros((), idx_dt), indices, upper)


def _scatter_lower(ctx, operand, indices, updates, *, update_jaxpr, update_consts,
                   dimension_numbers, indices_are_sorted, unique_indices, mode):
    dn = dimension_numbers
    if mode == _CLIP:
        indices = lower_traced(ctx, functools.partial(_clamp_scatter_indices,
                                                      dimension_numbers=dn),
                               operand, indices, updates)
    scalar = ShapedArray((), ctx.avals_out[0].dtype)

    def body(b, args):
        if update_jaxpr is None:
            return [args[1]]
        return lowering.lower_jaxpr_body(b, update_jaxpr, update_consts, args)
    region = ctx.fn.region([scalar, scalar], body)
    fields = [("update_window_dims", dn.update_window_dims),
              ("inserted_window_dims", dn.inserted_window_dims),
              ("input_batching_dims", dn.operand_batching_dims),
              ("scatter_indices_batching_dims", dn.scatter_indices_batching_dims),
              ("scatter_dims_to_operand_dims", dn.scatter_dims_to_operand_dims)]
    attrs = (f"indices_are_sorted = {str(indices_are_sorted).lower()}, "
             f"scatter_dimension_numbers = "
             f"{_dnums_attr('scatter', fields, indices.aval.ndim - 1)}, "
             f"unique_indices = {str(unique_indices).lower()}")
    return ctx.fn.op1("stablehlo.scatter", [operand, indices, updates], ctx.avals_out[0],
                      attrs, [region])


def _declare_scatter(name, transpose):
    def impl(operand, indices, updates, **params):
        return scatter_impl(name, operand, indices, updates, **params)
    # JVP and batching rules are registered below, once every scatter primitive exists.
    return def_primitive(name, abstract_eval=scatter_abstract_eval, impl=impl, jvp=None,
                         transpose=transpose, batch=None, lower=_scatter_lower)


scatter_p = _declare_scatter("scatter", _scatter_transpose)
scatter_add_p = _declare_scatter("scatter-add", None)
scatter_sub_p = _declare_scatter("scatter-sub", None)
scatter_mul_p = _declare_scatter("scatter-mul", _mul_transpose)
scatter_min_p = _declare_scatter("scatter-min", NONLINEAR)
scatter_max_p = _declare_scatter("scatter-max", NONLINEAR)
ad.primitive_jvps[scatter_p] = _scatter_jvp
for _p in (scatter_add_p, scatter_sub_p):
    ad.primitive_jvps[_p] = _addsub_jvp(_p)
    ad.primitive_transposes[_p] = _addsub_transpose(_p)
ad.defjvp(scatter_mul_p, _mul_jvp_operand, None, _mul_jvp_updates)
for _p in (scatter_min_p, scatter_max_p):
    ad.primitive_jvps[_p] = _extremal_jvp(_p)
_SCATTER_PRIMS = {"scatter": scatter_p, "scatter_add": scatter_add_p,
                  "scatter_sub": scatter_sub_p, "scatter_mul": scatter_mul_p,
                  "scatter_min": scatter_min_p, "scatter_max": scatter_max_p}
for _p in _SCATTER_PRIMS.values():
    batching.primitive_batchers[_p] = _scatter_batch(_p)


# ----------------------------------------------------------------------------------------
# Helpers built on gather/scatter
# ----------------------------------------------------------------------------------------


def take_along_axis(x, idx, axis: int):
    """out[..., i, ...] = x[..., idx[..., i, ...], ...] along `axis`; idx has x's shape
    except along axis (a gather batched over every other dimension)."""
    nd = np.ndim(x)
    axis = shapes.canonicalize_axis(axis, nd)
    others = tuple(d for d in range(nd) if d != axis)
    dn = GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(axis,),
                                start_index_map=(axis,), operand_batching_dims=others,
                                start_indices_batching_dims=others)
    indices = shapes.expand_dims(idx, (nd,))
    return gather(x, indices, dn, (1,) * nd, mode=_PROMISE)


def _stack_start_indices(idxs, ids, size):
    """Scalar start indices (some batched along axis 0 of size `size`) as one (size, n)
    index array."""
    dt = np.result_type(*[core.get_aval(i).dtype for i in idxs]) if idxs else np.int32
    cols = []
    for i, d in zip(idxs, ids):
        i = lax.convert_element_type(i, dt)
        if d is None:
            cols.append(shapes.broadcast_in_dim(i, (size, 1), ()))
        else:
            cols.append(shapes.broadcast_in_dim(batching.moveaxis(i, d, 0), (size, 1), (0,)))
    if not cols:
        return np.zeros((size, 0), np.int32)
    return shapes.concatenate(cols, 1)


def batched_dynamic_slice(axis_data, x, xd, idxs, ids, slice_sizes):
    """dynamic_slice whose start indices are batched: a clamping gather (batch dim 0)."""
    nd = len(slice_sizes)
    dims = tuple(range(nd))
    dn = GatherDimensionNumbers(offset_dims=dims, collapsed_slice_dims=(), start_index_map=dims)
    index = _stack_start_indices(idxs, ids, axis_data.size)
    out, _ = _gather_batch(axis_data, [x, index], [xd, 0], dimension_numbers=dn,
                           slice_sizes=tuple(slice_sizes), unique_indices=True,
                           indices_are_sorted=True, mode=_CLIP, fill_value=None)
    return out


def batched_dynamic_update_slice(axis_data, x, xd, upd, ud, idxs, ids):
    """dynamic_update_slice whose start indices are batched: a clamping scatter (batch dim
    0)."""
    nd = len(idxs)
    dims = tuple(range(nd))
    dn = ScatterDimensionNumbers(update_window_dims=dims, inserted_window_dims=(),
                                 scatter_dims_to_operand_dims=dims)
    index = _stack_start_indices(idxs, ids, axis_data.size)
    out, _ = _scatter_batch(scatter_p)(
        axis_data, [x, index, upd], [xd, 0, ud], dimension_numbers=dn, update_jaxpr=None,
        update_consts=(), indices_are_sorted=True, unique_indices=True, mode=_CLIP)
    return out


__all__ = ["GatherDimensionNumbers", "ScatterDimensionNumbers", "GatherScatterMode",
           "gather", "gather_p", "scatter", "scatter_p", "scatter_add", "scatter_add_p",
           "scatter_sub", "scatter_sub_p", "scatter_mul", "scatter_mul_p", "scatter_min",
           "scatter_min_p", "scatter_max", "scatter_max_p", "scatter_apply",
           "take_along_axis", "batched_dynamic_slice", "batched_dynamic_update_slice",
           "lower_traced"]
