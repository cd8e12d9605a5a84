"""dynamic_slice and dynamic_update_slice, declared once with all their rules, and the
`lax.dynamic_*` wrappers (start indices clamped as XLA does, negative ones normalized as
JAX does). lax.shapes re-exports every name; import them from there.

May import core, dtypes, the interpreters, lax._define, lax.lax and lax.shapes (complete
before it imports this module at its end).
"""

from __future__ import annotations

import builtins

import numpy as np

from didax._src import core, dtypes
from didax._src.core import ShapedArray
from didax._src.interpreters import ad, batching
from didax._src.interpreters.ad import Zero
from didax._src.interpreters.lowering import i64_array
from didax._src.lax import lax
from didax._src.lax._define import check_same_dtypes, def_primitive
from didax._src.lax.shapes import _shape_tuple, expand_dims, full, squeeze


def _check_indices(name, x, idxs):
    if len(idxs) != x.ndim:
        raise TypeError(f"{name} start_indices must have length equal to the number of "
                        f"dimensions of the operand, got indices of length {len(idxs)} for "
                        f"operand shape {x.shape}.")
    if any(i.shape != () for i in idxs):
        raise TypeError(f"{name} start_indices must be scalar integers, got "
                        f"{[i.str_short() for i in idxs]}.")
    _check_index_dtypes(name, [i.dtype for i in idxs])


def _check_index_dtypes(name, dts) -> None:
    """Start indices are integers, all of one dtype (JAX's messages)."""
    if dts and (len(set(dts)) > 1 or not dtypes.is_int(dts[0])):
        sep = ":" if name == "dynamic_slice" else ""
        raise TypeError(f"index arguments to {name} must be integers of the same type, "
                        f"got{sep} {', '.join(np.dtype(d).name for d in dts)}")


def _ds_abstract_eval(x, *idxs, slice_sizes):
    _check_indices("dynamic_slice", x, idxs)
    if any(s > d or s < 0 for s, d in zip(slice_sizes, x.shape)):
        raise TypeError(f"slice slice_sizes must be less than or equal to operand shape, got "
                        f"slice_sizes {tuple(slice_sizes)} for operand shape {x.shape}.")
    return ShapedArray(slice_sizes, x.dtype, x.weak_type)


def _clamped_starts(shape, sizes, idxs):
    return [int(np.clip(int(i), 0, d - s)) for i, d, s in zip(idxs, shape, sizes)]


def _ds_impl(x, *idxs, slice_sizes):
    starts = _clamped_starts(x.shape, slice_sizes, idxs)
    return x[tuple(builtins_slice(s, s + k) for s, k in zip(starts, slice_sizes))]


builtins_slice = builtins.slice


def _ds_transpose(ct, x, *idxs, slice_sizes):
    if type(ct) is Zero:
        return [Zero(x.aval)] + [None] * len(idxs)
    zeros = full(x.aval.shape, 0, x.aval.dtype)
    return [dynamic_update_slice_p.bind(zeros, ct, *idxs)] + [None] * len(idxs)


def _ds_jvp(primals, tangents, *, slice_sizes):
    t = tangents[0]
    if type(t) is not Zero:  # the tangent's slice is staged first, as in JAX
        t = dynamic_slice_p.bind(t, *primals[1:], slice_sizes=slice_sizes)
    ans = dynamic_slice_p.bind(*primals, slice_sizes=slice_sizes)
    return ans, (Zero.from_primal_value(ans) if type(t) is Zero else t)


def _ds_batch(axis_data, vals, dims, *, slice_sizes):
    x, *idxs = vals
    xd, *ids = dims
    if all(d is None for d in ids):
        zero = np.array(0, core.get_aval(idxs[0]).dtype if idxs else np.int32)[()]
        new_idxs = list(idxs)
        new_idxs.insert(xd, zero)
        sizes = list(slice_sizes)
        sizes.insert(xd, np.shape(x)[xd])
        return dynamic_slice_p.bind(x, *new_idxs, slice_sizes=tuple(sizes)), xd
    from didax._src.lax.slicing import batched_dynamic_slice  # noqa: PLC0415

    return batched_dynamic_slice(axis_data, x, xd, idxs, ids, slice_sizes), 0


def _ds_lower(ctx, x, *idxs, slice_sizes):
    return ctx.fn.op1("stablehlo.dynamic_slice", [x, *idxs], ctx.avals_out[0],
                      f"slice_sizes = {i64_array(slice_sizes)}")


dynamic_slice_p = def_primitive(
    "dynamic_slice", abstract_eval=_ds_abstract_eval, impl=_ds_impl, jvp=_ds_jvp,
    transpose=_ds_transpose, batch=_ds_batch, lower=_ds_lower, linear="joint")


def _dus_abstract_eval(x, upd, *idxs):
    _check_indices("dynamic_update_slice", x, idxs)
    if upd.ndim != x.ndim:
        raise TypeError(f"dynamic_update_slice update must have the same rank as operand, got "
                        f"update shape {upd.shape} for operand shape {x.shape}.")
    if any(u > d for u, d in zip(upd.shape, x.shape)):
        raise TypeError(f"dynamic_update_slice update shape must be smaller than operand "
                        f"shape, got update shape {upd.shape} for operand shape {x.shape}.")
    check_same_dtypes("dynamic_update_slice", x, upd)
    return ShapedArray(x.shape, x.dtype, x.weak_type)


def _dus_impl(x, upd, *idxs):
    starts = _clamped_starts(x.shape, upd.shape, idxs)
    out = np.array(x, copy=True)
    out[tuple(builtins_slice(s, s + k) for s, k in zip(starts, upd.shape))] = upd
    return out


def _dus_jvp(primals, tangents):
    x, upd, *idxs = primals
    tx, tu = tangents[:2]
    ans = dynamic_update_slice_p.bind(x, upd, *idxs)
    if type(tx) is Zero and type(tu) is Zero:
        return ans, Zero.from_primal_value(ans)
    tx, tu = ad.instantiate_zeros(tx), ad.instantiate_zeros(tu)
    return ans, dynamic_update_slice_p.bind(tx, tu, *idxs)


def _dus_transpose(ct, x, upd, *idxs):
    lin_x, lin_u = ad.is_undefined_primal(x), ad.is_undefined_primal(upd)
    upd_aval = upd.aval if lin_u else core.get_aval(upd)
    if type(ct) is Zero:
        return [Zero(x.aval) if lin_x else None, Zero(upd.aval) if lin_u else None] + \
            [None] * len(idxs)
    ct_x = ct_u = None
    if lin_x:
        ct_x = dynamic_update_slice_p.bind(ct, full(upd_aval.shape, 0, upd_aval.dtype), *idxs)
    if lin_u:
        ct_u = dynamic_slice_p.bind(ct, *idxs, slice_sizes=upd_aval.shape)
    return [ct_x, ct_u] + [None] * len(idxs)


def _dus_batch(axis_data, vals, dims):
    x, upd, *idxs = vals
    xd, ud, *ids = dims
    size = axis_data.size
    if all(d is None for d in ids):
        x = batching.bdim_at_front(x, xd, size)
        upd = batching.bdim_at_front(upd, ud, size)
        zero = np.array(0, core.get_aval(idxs[0]).dtype if idxs else np.int32)[()]
        return dynamic_update_slice_p.bind(x, upd, zero, *idxs), 0
    from didax._src.lax.slicing import batched_dynamic_update_slice  # noqa: PLC0415

    return batched_dynamic_update_slice(axis_data, x, xd, upd, ud, idxs, ids), 0


dynamic_update_slice_p = def_primitive(
    "dynamic_update_slice", abstract_eval=_dus_abstract_eval, impl=_dus_impl, jvp=_dus_jvp,
    transpose=_dus_transpose, batch=_dus_batch, linear="joint",
    lower=lambda ctx, x, upd, *idxs: ctx.fn.op1("stablehlo.dynamic_update_slice",
                                                [x, upd, *idxs], ctx.avals_out[0]))


def _index_dtype():
    return np.dtype(np.int64) if core.x64_enabled() else np.dtype(np.int32)


def _index_dtypes(start_indices):
    """Dtypes of user start indices (Python ints count as the default int, as in JAX)."""
    return [core.get_aval(i).dtype for i in start_indices if not isinstance(i, bool)]


def _normalize_index(i, size, allow_negative=True):
    """Start index i -> i + size where negative (static for Python/NumPy integers, a
    select otherwise), as JAX normalizes; unsigned indices are left alone."""
    aval = core.get_aval(i)
    dt = aval.dtype if dtypes.is_int(aval.dtype) else _index_dtype()
    if dtypes.is_unsigned(aval.dtype):
        return i
    if isinstance(i, (int, np.integer)) and not isinstance(i, bool):
        if i < 0 and not allow_negative:
            raise ValueError(f"Index {i} is out of bounds for dimension {size} if "
                             "allow_negative_indices=False")
        return np.array(i + size if i < 0 and allow_negative else i, dt)[()]
    if not allow_negative:
        return i
    return lax.select_n(lax.lt(i, np.array(0, dt)[()]), i,
                        lax.add(lax.convert_element_type(i, dt), np.array(size, dt)[()]))


def _normalize_indices(operand, start_indices, allow_negative_indices):
    shape = np.shape(operand)
    if len(start_indices) != len(shape):
        raise ValueError(f"Length of slice indices must match number of operand "
                         f"dimensions ({len(start_indices)} vs {shape})")
    allow = allow_negative_indices
    if isinstance(allow, bool):
        allow = [allow] * len(shape)
    return [_normalize_index(i, d, a) for i, d, a in zip(start_indices, shape, allow)]


def dynamic_slice(operand, start_indices, slice_sizes, *, allow_negative_indices=True):
    _check_index_dtypes("dynamic_slice", _index_dtypes(start_indices))
    idxs = _normalize_indices(operand, start_indices, allow_negative_indices)
    return dynamic_slice_p.bind(operand, *idxs, slice_sizes=_shape_tuple(slice_sizes))


def dynamic_update_slice(operand, update, start_indices, *, allow_negative_indices=True):
    _check_index_dtypes("dynamic_update_slice", _index_dtypes(start_indices))
    idxs = _normalize_indices(operand, start_indices, allow_negative_indices)
    return dynamic_update_slice_p.bind(operand, update, *idxs)


def _zero_index_like(index):
    """0 with the dtype of `index` (the other start indices must share its type)."""
    aval = core.get_aval(index)
    dt = aval.dtype if dtypes.is_int(aval.dtype) else _index_dtype()
    return np.array(0, dt)[()]


def dynamic_slice_in_dim(operand, start_index, slice_size, axis=0):
    shape = np.shape(operand)
    starts = [_zero_index_like(start_index)] * len(shape)
    starts[axis] = start_index
    sizes = list(shape)
    sizes[axis] = slice_size
    return dynamic_slice(operand, starts, sizes)


def dynamic_index_in_dim(operand, index, axis=0, keepdims=True):
    out = dynamic_slice_in_dim(operand, index, 1, axis)
    return out if keepdims else squeeze(out, (axis,))


def dynamic_update_slice_in_dim(operand, update, start_index, axis):
    starts = [_zero_index_like(start_index)] * np.ndim(operand)
    starts[axis] = start_index
    return dynamic_update_slice(operand, update, starts)


def dynamic_update_index_in_dim(operand, update, index, axis):
    if np.ndim(update) != np.ndim(operand):
        update = expand_dims(update, (axis,))
    return dynamic_update_slice_in_dim(operand, update, index, axis)
