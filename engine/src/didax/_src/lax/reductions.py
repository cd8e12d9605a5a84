"""Reductions, scans and contraction primitives of `didax.lax`: reduce_sum/max/min/prod/
and/or/xor, argmax/argmin, cumsum/cumprod/cummax/cummin/cumlogsumexp and dot_general — each
declared once with all its rules (sort lives in lax.sorting, re-exported here).

May import core, dtypes, the interpreters, lax._define, lax.lax and lax.shapes.
"""

from __future__ import annotations

import enum
import functools
import math
import operator
from collections.abc import Callable, Sequence

import numpy as np

from didax._src import core, dtypes
from didax._src.core import ShapedArray
from didax._src.interpreters import ad, batching, lowering, tape
from didax._src.interpreters.ad import Zero
from didax._src.interpreters.lowering import i64_array
from didax._src.lax import lax, shapes
from didax._src.lax._define import (
    NONLINEAR,
    ZERO_JVP,
    _any,
    _bool_or_int,
    _float,
    _num,
    check_accepted,
    def_primitive,
)


def _reduce_abstract_eval(name, accepted, keep_weak=True):
    def rule(x, *, axes, **params):
        check_accepted(name, x, accepted, None)
        if any(not 0 <= a < x.ndim for a in axes) or len(set(axes)) != len(axes):
            raise ValueError(f"reduction axes {axes} contains out-of-bounds indices for "
                             f"{x.dtype.name}[{','.join(map(str, x.shape))}].")
        shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
        return ShapedArray(shape, x.dtype, x.weak_type and keep_weak)
    return rule


def _identity(dtype, kind):
    dtype = np.dtype(dtype)
    if kind == "sum":
        return np.zeros((), dtype)
    if kind == "prod":
        return np.ones((), dtype)
    if kind in ("max", "min"):
        if dtype == np.bool_:
            return np.array(kind == "min", dtype)
        if dtypes.is_int(dtype):
            info = np.iinfo(dtype)
            return np.array(info.min if kind == "max" else info.max, dtype)
        return np.array(-np.inf if kind == "max" else np.inf, dtype)
    if kind == "and":
        return np.array(-1 if dtype != np.bool_ else True, dtype)
    return np.zeros((), dtype)  # or / xor


def _reduce_lower(kind, opname):
    def rule(ctx, x, *, axes, **params):
        out = ctx.avals_out[0]
        init = ctx.fn.const(_identity(x.aval.dtype, kind), ShapedArray((), x.aval.dtype))
        return lowering.reduce(ctx.fn, x, init, axes, opname, out)
    return rule


def _pp_hide(*names):
    def rule(eqn, context, settings):
        params = [(k, v) for k, v in sorted(eqn.params.items()) if k not in names]
        return core.pp_eqn_default(eqn, context, settings, params)
    return rule


def _reduce_sum_transpose(ct, x, *, axes, out_sharding):
    if type(ct) is Zero:
        return [Zero(x.aval)]
    shape = x.aval.shape
    return [shapes.broadcast_in_dim(ct, shape, _kept_dims(len(shape), axes))]


@functools.lru_cache(maxsize=1024)
def _kept_dims(ndim, axes):
    return tuple(np.delete(np.arange(ndim), axes))  # NumPy ints, as JAX's rule


def _reduce_sum_jvp(primals, tangents, *, axes, out_sharding):
    ans = reduce_sum_p.bind(primals[0], axes=axes, out_sharding=out_sharding)
    t = tangents[0]
    if type(t) is Zero:
        return ans, Zero.from_primal_value(ans)
    return ans, reduce_sum_p.bind(t, axes=axes, out_sharding=out_sharding)


def _sum_impl(x, axes):
    """NumPy's sum in x's dtype; the ml_dtypes floats (bfloat16, ...) accumulate in
    float32 and round once, as XLA does (summing in bfloat16 drifts far: 300 x 1.01 would
    give 346)."""
    if x.dtype.kind == "V" and dtypes.is_float(x.dtype):
        return np.add.reduce(x.astype(np.float32), axis=axes).astype(x.dtype)
    if tape.ACTIVE[0] and x.size >= _BLOCKED_MIN and x.flags.c_contiguous and \
            tuple(axes) == tuple(range(len(axes))):
        return _sum_leading_blocked(x, len(axes))
    return np.add.reduce(x, axis=axes, dtype=x.dtype)


_BLOCKED_MIN = 1 << 14


def _sum_leading_blocked(x: np.ndarray, k: int) -> np.ndarray:
    """The sum over x's first k axes (a bias gradient: a batch of images summed to one
    value per feature). NumPy adds a few trailing features at a time down a long column
    (10x slower than its speed on long rows): for float32/float64 the sum is a BLAS
    product of a row of ones with x as a (rows, features) matrix; else, with `b`
    consecutive rows laid side by side the rows are b times longer, and the b partial sums
    are added last. A different order of the same additions, so only while a tape is
    active (tape.ACTIVE: eager reverse mode, which already rounds as NumPy does)."""
    rows = math.prod(x.shape[:k])
    width = x.size // rows if rows else 0
    if rows and width and x.dtype in _BLAS_SUMS:
        return (_ones(rows, x.dtype) @ x.reshape(rows, width)).reshape(x.shape[k:])
    b = 1
    while width * b < 256 and rows % (2 * b) == 0:
        b *= 2
    if b == 1:
        return np.add.reduce(x, axis=tuple(range(k)), dtype=x.dtype)
    partial = np.add.reduce(x.reshape(rows // b, b * width), axis=0, dtype=x.dtype)
    return np.add.reduce(partial.reshape(b, width), axis=0).reshape(x.shape[k:])


_BLAS_SUMS = (np.dtype(np.float32), np.dtype(np.float64))


@functools.lru_cache(maxsize=16)
def _ones(n: int, dtype) -> np.ndarray:
    ones = np.ones(n, dtype)
    ones.flags.writeable = False
    return ones


reduce_sum_p = def_primitive(
    "reduce_sum", abstract_eval=_reduce_abstract_eval("reduce_sum", _num),
    impl=lambda x, *, axes, out_sharding: _sum_impl(x, axes),
    jvp=_reduce_sum_jvp, transpose=_reduce_sum_transpose, batch=None,
    lower=_reduce_lower("sum", "stablehlo.add"), linear="joint")
batching.defreducer(reduce_sum_p)


def _chooser_jvp(prim):
    """max/min: the tangent averages the tangents at the locations attaining the extremum."""

    def rule(primals, tangents, *, axes):
        (x,), (t,) = primals, tangents
        ans = prim.bind(x, axes=axes)
        if type(t) is Zero:
            return ans, Zero.from_primal_value(ans)
        shape = np.shape(x)
        kept_shape = tuple(1 if i in axes else d for i, d in enumerate(shape))
        loc = lax.convert_element_type(lax.eq(x, shapes.reshape(ans, kept_shape)),
                                       core.get_aval(t).dtype)
        counts = reduce_sum(loc, axes)
        return ans, lax.div(reduce_sum(lax.mul(t, loc), axes), counts)
    return rule


reduce_max_p = def_primitive(
    "reduce_max", abstract_eval=_reduce_abstract_eval("reduce_max", _any),
    impl=lambda x, *, axes: np.max(x, axis=axes) if x.size else
    np.full([d for i, d in enumerate(x.shape) if i not in axes], _identity(x.dtype, "max")),
    jvp=None, transpose=NONLINEAR, batch=None, lower=_reduce_lower("max", "stablehlo.maximum"))
reduce_min_p = def_primitive(
    "reduce_min", abstract_eval=_reduce_abstract_eval("reduce_min", _any),
    impl=lambda x, *, axes: np.min(x, axis=axes) if x.size else
    np.full([d for i, d in enumerate(x.shape) if i not in axes], _identity(x.dtype, "min")),
    jvp=None, transpose=NONLINEAR, batch=None, lower=_reduce_lower("min", "stablehlo.minimum"))
ad.primitive_jvps[reduce_max_p] = _chooser_jvp(reduce_max_p)
ad.primitive_jvps[reduce_min_p] = _chooser_jvp(reduce_min_p)


def _chooser_pullback(ct, ans, x, *, axes):
    """The eager tape's pullback of reduce_max/min: the chooser JVP's linear part
    (average over the extremum's locations) transposed, as linearize would transpose it."""
    shape = np.shape(x)
    kept_shape = tuple(1 if i in axes else d for i, d in enumerate(shape))
    dtype = core.get_aval(ct).dtype
    loc = lax.convert_element_type(lax.eq(x, shapes.reshape(ans, kept_shape)), dtype)
    ct = lax.div(ct, reduce_sum(loc, axes))
    ct = shapes.broadcast_in_dim(ct, shape, _kept_dims(len(shape), axes))
    return [lax.mul(ct, loc)]


tape.pullbacks[reduce_max_p] = _chooser_pullback
tape.pullbacks[reduce_min_p] = _chooser_pullback
batching.defreducer(reduce_max_p)
batching.defreducer(reduce_min_p)


def _reduce_prod_jvp(primals, tangents, *, axes):
    """Differentiates a pairwise product tree over the reduced axes (moved to the front and
    flattened), as JAX does: exact with zeros, and the same staged program."""
    (x,), (t,) = primals, tangents
    if type(t) is Zero:
        ans = reduce_prod_p.bind(x, axes=axes)
        return ans, Zero.from_primal_value(ans)
    in_shape = np.array(np.shape(x), dtype=int)
    non_axes = np.delete(np.arange(len(in_shape)), axes)
    perm = tuple(axes) + tuple(non_axes)
    new_shape = (np.prod(in_shape[list(axes)]), *in_shape[non_axes])
    x2, t2 = (shapes.reshape(v, new_shape, perm) for v in (x, t))
    one = lax._const(x, 1)
    out_shape = tuple(in_shape[non_axes])
    p, tt = ad.jvp_flat(lambda v: [_product_tree(v, one, out_shape)], [x2], [t2])
    return p[0], tt[0]


def _product_tree(v, one, out_shape):
    """The product over axis 0 by repeatedly multiplying the two halves."""
    while np.shape(v)[0] > 1:
        n = np.shape(v)[0]
        n1 = (n + 1) // 2
        a, b = shapes.slice_in_dim(v, 0, n1), shapes.slice_in_dim(v, n1, None)
        if n - n1 != n1:
            cfg = [(0, 0, 0)] * np.ndim(v)
            cfg[0] = (0, 1, 0)
            b = shapes.pad(b, one, cfg)
        v = lax.mul(a, b)
    if np.shape(v)[0] == 0:
        return shapes.full(out_shape, one)
    return shapes.squeeze(v, (0,))


reduce_prod_p = def_primitive(
    "reduce_prod", abstract_eval=_reduce_abstract_eval("reduce_prod", _num),
    impl=lambda x, *, axes: np.prod(x, axis=axes, dtype=x.dtype), jvp=_reduce_prod_jvp,
    transpose=NONLINEAR, batch=None, lower=_reduce_lower("prod", "stablehlo.multiply"))
batching.defreducer(reduce_prod_p)


def _logical_reduce(name, np_fn, kind, opname):
    prim = def_primitive(
        name, abstract_eval=_reduce_abstract_eval(name, _bool_or_int),
        impl=lambda x, *, axes: np_fn(x, axes), jvp=ZERO_JVP, transpose=NONLINEAR,
        batch=None, lower=_reduce_lower(kind, opname))
    batching.defreducer(prim)
    return prim


def _np_and(x, axes):
    if x.dtype == np.bool_:
        return np.all(x, axis=axes)
    return np.bitwise_and.reduce(x, axis=axes) if x.size else np.full(
        [d for i, d in enumerate(x.shape) if i not in axes], -1, x.dtype)


def _np_or(x, axes):
    if x.dtype == np.bool_:
        return np.any(x, axis=axes)
    return np.bitwise_or.reduce(x, axis=axes) if x.size else np.zeros(
        [d for i, d in enumerate(x.shape) if i not in axes], x.dtype)


def _np_xor(x, axes):
    if x.dtype == np.bool_:
        return np.logical_xor.reduce(x, axis=axes)
    return np.bitwise_xor.reduce(x, axis=axes)


reduce_and_p = _logical_reduce("reduce_and", _np_and, "and", "stablehlo.and")
reduce_or_p = _logical_reduce("reduce_or", _np_or, "or", "stablehlo.or")
reduce_xor_p = _logical_reduce("reduce_xor", _np_xor, "xor", "stablehlo.xor")


# ----------------------------------------------------------------------------------------
# argmax / argmin
# ----------------------------------------------------------------------------------------


def _arg_abstract_eval(name):
    def rule(x, *, axes, index_dtype):
        check_accepted(name, x, _any, None)
        if len(axes) != 1 or not 0 <= axes[0] < x.ndim:
            raise ValueError(f"Invalid axis {axes[0] if len(axes) == 1 else axes} for "
                             f"operand shape {x.shape}")
        if x.shape[axes[0]] == 0:
            raise ValueError(f"argmin and argmax require non-empty reduced dimension. "
                             f"operand.shape={x.shape} axis={axes[0]}")
        shape = tuple(d for i, d in enumerate(x.shape) if i != axes[0])
        return ShapedArray(shape, index_dtype)
    return rule


def _arg_lower(direction):
    def rule(ctx, x, *, axes, index_dtype):
        fn, out = ctx.fn, ctx.avals_out[0]
        axis = axes[0]
        idx_aval = ShapedArray(x.aval.shape, index_dtype)
        iota = fn.op1("stablehlo.iota", [], idx_aval, f"iota_dimension = {axis} : i64")
        kind = "max" if direction == "GT" else "min"
        vinit = fn.const(_identity(x.aval.dtype, kind), ShapedArray((), x.aval.dtype))
        iinit = fn.const(np.zeros((), index_dtype), ShapedArray((), index_dtype))
        vs, is_ = ShapedArray((), x.aval.dtype), ShapedArray((), index_dtype)

        def body(b, args):
            v1, i1, v2, i2 = args
            better = lowering.compare_op(b, v1, v2, direction)
            if dtypes.is_inexact(x.aval.dtype):
                nan1 = lowering.compare_op(b, v1, v1, "NE")
                better = b.op1("stablehlo.or", [better, nan1], better.aval)
            eqv = lowering.compare_op(b, v1, v2, "EQ")
            lower_idx = lowering.compare_op(b, i1, i2, "LT")
            tie = b.op1("stablehlo.and", [eqv, lower_idx], eqv.aval)
            pick1 = b.op1("stablehlo.or", [better, tie], eqv.aval)
            return [b.op1("stablehlo.select", [pick1, v1, v2], vs),
                    b.op1("stablehlo.select", [pick1, i1, i2], is_)]

        region = fn.region([vs, is_, vs, is_], body)
        outs = fn.op("stablehlo.reduce", [x, iota, vinit, iinit],
                     [ShapedArray(out.shape, x.aval.dtype), out],
                     f"dimensions = {i64_array([axis])}", [region])
        return outs[1]
    return rule


def _np_arg(np_fn):
    def impl(x, *, axes, index_dtype):
        return np_fn(x, axis=axes[0]).astype(index_dtype)
    return impl


argmax_p = def_primitive(
    "argmax", abstract_eval=_arg_abstract_eval("argmax"), impl=_np_arg(np.argmax),
    jvp=ZERO_JVP, transpose=NONLINEAR, batch=None, lower=_arg_lower("GT"))
argmin_p = def_primitive(
    "argmin", abstract_eval=_arg_abstract_eval("argmin"), impl=_np_arg(np.argmin),
    jvp=ZERO_JVP, transpose=NONLINEAR, batch=None, lower=_arg_lower("LT"))
batching.defreducer(argmax_p)
batching.defreducer(argmin_p)


# ----------------------------------------------------------------------------------------
# Cumulative reductions
# ----------------------------------------------------------------------------------------


def _cum_abstract_eval(name, accepted):
    def rule(x, *, axis, reverse):
        check_accepted(name, x, accepted, None)
        if not 0 <= axis < x.ndim:
            raise ValueError(f"axis {axis} is out of bounds for array of shape {x.shape}")
        return ShapedArray(x.shape, x.dtype, x.weak_type)
    return rule


def _np_cum(np_fn):
    def impl(x, *, axis, reverse):
        if x.ndim == 0:
            return x
        if reverse:
            return np.flip(np_fn(np.flip(x, axis), axis=axis), axis)
        return np_fn(x, axis=axis)
    return impl


def _np_cumlogsumexp(x, axis):
    return np.logaddexp.accumulate(x, axis=axis)


def _prefix_scan(combine, identity, x, axis, reverse):
    """Hillis–Steele inclusive scan with lax ops (used for JVPs and lowering)."""
    n = np.shape(x)[axis]
    nd = np.ndim(x)
    if reverse:
        x = shapes.rev(x, (axis,))
    shift = 1
    while shift < n:
        cfg = [(0, 0, 0)] * nd
        cfg[axis] = (shift, -shift, 0)
        shifted = shapes.pad(x, identity, cfg)
        x = combine(x, shifted)
        shift *= 2
    if reverse:
        x = shapes.rev(x, (axis,))
    return x


# The scan cumulative JVPs differentiate: the control-flow library (above this layer)
# installs JAX's associative_scan here; until then a Hillis–Steele scan.
scan_for_jvp: list[Callable] = []


def _scan_for_jvp(combine, identity, x, axis, reverse):
    if scan_for_jvp:
        return scan_for_jvp[0](combine, x, reverse=reverse, axis=axis)
    return _prefix_scan(combine, identity, x, axis, reverse)


def _cum_jvp(combine, identity_kind):
    def make(prim):
        def rule(primals, tangents, *, axis, reverse):
            (x,), (t,) = primals, tangents
            if type(t) is Zero:
                ans = prim.bind(x, axis=axis, reverse=reverse)
                return ans, Zero.from_primal_value(ans)
            ident = _identity(core.get_aval(x).dtype, identity_kind)
            p, t_out = ad.jvp_flat(
                lambda v: [_scan_for_jvp(combine, ident, v, axis, reverse)], [x], [t])
            return p[0], t_out[0]
        return rule
    return make


def _cum_lower(combine_op, identity_kind):
    def rule(ctx, x, *, axis, reverse):
        fn, out = ctx.fn, ctx.avals_out[0]
        n = x.aval.shape[axis] if x.aval.ndim else 1
        if x.aval.ndim == 0 or n == 0:     # (an empty axis: no window to reduce)
            return x
        init = fn.const(_identity(x.aval.dtype, identity_kind), ShapedArray((), x.aval.dtype))
        window = [1] * x.aval.ndim
        window[axis] = n
        pads = [[0, 0] for _ in range(x.aval.ndim)]
        pads[axis] = [0, n - 1] if reverse else [n - 1, 0]
        region = lowering.reducer_region(fn, combine_op, x.aval.dtype)
        pad_attr = ", ".join(f"[{a}, {b}]" for a, b in pads)
        attrs = (f"window_dimensions = {i64_array(window)}, "
                 f"padding = dense<[{pad_attr}]> : tensor<{x.aval.ndim}x2xi64>")
        return fn.op1("stablehlo.reduce_window", [x, init], out, attrs, [region])
    return rule


def _cum_transpose_sum(ct, x, *, axis, reverse):
    if type(ct) is Zero:
        return [Zero(x.aval)]
    return [cumsum_p.bind(ct, axis=axis, reverse=not reverse)]


def _cum_batch(prim):
    def rule(axis_data, vals, dims, *, axis, reverse):
        (x,), (d,) = vals, dims
        return prim.bind(x, axis=axis + (d <= axis), reverse=reverse), d
    return rule


def _def_cum(name, accepted, np_fn, combine_op, kind, jvp, transpose):
    prim = def_primitive(
        name, abstract_eval=_cum_abstract_eval(name, accepted), impl=_np_cum(np_fn),
        jvp=None if callable(jvp) else jvp, transpose=transpose, batch=None,
        lower=_cum_lower(combine_op, kind))
    batching.primitive_batchers[prim] = _cum_batch(prim)
    if callable(jvp):
        ad.primitive_jvps[prim] = jvp(prim)
    return prim


def _cumsum_jvp(prim):
    def rule(primals, tangents, *, axis, reverse):
        ans = prim.bind(primals[0], axis=axis, reverse=reverse)
        t = tangents[0]
        if type(t) is Zero:
            return ans, Zero.from_primal_value(ans)
        return ans, prim.bind(t, axis=axis, reverse=reverse)
    return rule


cumsum_p = _def_cum("cumsum", _num, np.cumsum, "stablehlo.add", "sum", _cumsum_jvp,
                    _cum_transpose_sum)
ad.linearity[cumsum_p] = "joint"
cumprod_p = _def_cum("cumprod", _num, np.cumprod, "stablehlo.multiply", "prod",
                     _cum_jvp(lambda a, b: lax.mul(a, b), "prod"), NONLINEAR)
cummax_p = _def_cum("cummax", _any, np.maximum.accumulate, "stablehlo.maximum", "max",
                    _cum_jvp(lambda a, b: lax.max(a, b), "max"), NONLINEAR)
cummin_p = _def_cum("cummin", _any, np.minimum.accumulate, "stablehlo.minimum", "min",
                    _cum_jvp(lambda a, b: lax.min(a, b), "min"), NONLINEAR)


def _logaddexp(a, b):
    m = lax.max(a, b)
    return lax.add(m, lax.log1p(lax.exp(lax.neg(lax.abs(lax.sub(a, b))))))


def _cumlogsumexp_lower(ctx, x, *, axis, reverse):
    from didax._src.interpreters import partial_eval as pe  # noqa: PLC0415

    ident = np.array(-np.inf, x.aval.dtype)
    jaxpr, _, consts = pe.trace_to_jaxpr_dynamic(
        lambda v: [_prefix_scan(_logaddexp, ident, v, axis, reverse)], [x.aval], "lowering")
    return lowering.lower_jaxpr_body(ctx.fn, jaxpr, consts, [x])[0]


cumlogsumexp_p = def_primitive(
    "cumlogsumexp", abstract_eval=_cum_abstract_eval("cumlogsumexp", _float),
    impl=_np_cum(_np_cumlogsumexp), jvp=None, transpose=NONLINEAR, batch=None,
    lower=_cumlogsumexp_lower)
ad.primitive_jvps[cumlogsumexp_p] = _cum_jvp(_logaddexp, "max")(cumlogsumexp_p)
batching.primitive_batchers[cumlogsumexp_p] = _cum_batch(cumlogsumexp_p)


# ----------------------------------------------------------------------------------------
# dot_general
# ----------------------------------------------------------------------------------------


def _remaining(n, *removed):
    drop = set(i for r in removed for i in r)
    return [i for i in range(n) if i not in drop]


def _check_dot_dims(lhs, rhs, dimension_numbers) -> None:
    """JAX's validation of dot_general dimension numbers (same messages)."""
    (lc, rc), (lb, rb) = dimension_numbers
    for side, x, batch, contract in (("lhs", lhs, lb, lc), ("rhs", rhs, rb, rc)):
        if any(not 0 <= d < x.ndim for d in (*batch, *contract)):
            raise TypeError(
                f"dot_general requires {side} dimension numbers to be nonnegative and less "
                f"than the number of axes of the {side} value, got {side}_batch of {batch} "
                f"and {side}_contracting of {contract} for {side} of rank {x.ndim}")
    if len(lb) != len(rb):
        raise TypeError("dot_general requires equal numbers of lhs_batch and rhs_batch "
                        f"dimensions, got lhs_batch {lb} and rhs_batch {rb}.")
    for side, batch, contract in (("lhs", lb, lc), ("rhs", rb, rc)):
        for what, dims in (("batch", batch), ("contracting", contract)):
            if len(set(dims)) != len(dims):
                raise TypeError(f"dot_general requires {side} {what} dimensions to be "
                                f"distinct, got {side}_{what} {dims}.")
        if set(batch) & set(contract):
            raise TypeError(
                f"dot_general requires {side} batch dimensions to be disjoint from "
                f"contracting dimensions, got {side}_batch {batch} and {side}_contracting "
                f"{contract}.")
    for what, ldims, rdims in (("batch", lb, rb), ("contracting", lc, rc)):
        ls, rs = tuple(lhs.shape[d] for d in ldims), tuple(rhs.shape[d] for d in rdims)
        if ls != rs:
            what = ("lhs batch dimensions and rhs batch dimensions" if what == "batch"
                    else "contracting dimensions")
            raise TypeError(f"dot_general requires {what} to have the same shape, got {ls} "
                            f"and {rs}.")


def _precision_rank(dt):
    """XLA's order of "higher precision" types: complex, exponent range, mantissa, width,
    signedness (the wider operand type is the result type of a mixed-type dot)."""
    dt = np.dtype(dt)
    real = dtypes.real_dtype(dt) if dtypes.is_complex(dt) else dt
    if dtypes.is_float(real):
        info = dtypes.finfo(real)
        return (dtypes.is_complex(dt), info.maxexp, info.nmant, info.bits, True)
    bits = 1 if real == np.bool_ else real.itemsize * 8
    return (False, -1, -1, bits, not dtypes.is_unsigned(real))


@functools.lru_cache(maxsize=512)
@functools.lru_cache(maxsize=256)
def _dot_dtype(lhs_dt, rhs_dt, preferred):
    lr, rr = _precision_rank(lhs_dt), _precision_rank(rhs_dt)
    if lr == rr and lhs_dt != rhs_dt:
        raise TypeError(f"lax.dot_general argument type error: {lhs_dt}, {rhs_dt}")
    result = lhs_dt if lr >= rr else rhs_dt
    if preferred is None or np.dtype(preferred) == result:
        return np.dtype(result)
    preferred = np.dtype(preferred)
    if not dtypes.is_float(result) and _precision_rank(preferred)[3] < max(lr, rr)[3]:
        raise TypeError("`preferred_element_type` must not be narrower than the original "
                        f"type, got preferred_element_type of {preferred} for result type "
                        f"of {result}.")
    return preferred


def _dot_general_abstract_eval(lhs, rhs, *, dimension_numbers, precision,
                               preferred_element_type, out_sharding):
    _check_dot_dims(lhs, rhs, dimension_numbers)
    (lc, rc), (lb, rb) = dimension_numbers
    shape = (tuple(lhs.shape[d] for d in lb)
             + tuple(lhs.shape[d] for d in _remaining(lhs.ndim, lc, lb))
             + tuple(rhs.shape[d] for d in _remaining(rhs.ndim, rc, rb)))
    dt = _dot_dtype(lhs.dtype, rhs.dtype, preferred_element_type)
    return ShapedArray(shape, dt, lhs.weak_type and rhs.weak_type)


@functools.lru_cache(maxsize=64)
def _einsum_dtype(dt):
    """NumPy's einsum lacks the ml_dtypes floats: compute those in float32."""
    return np.dtype(np.float32) if dt.kind == "V" or dt.name == "bfloat16" else dt


@functools.lru_cache(maxsize=1024)
def _dot_plan(dimension_numbers, lhs_ndim, rhs_ndim):
    """Transposes that put (batch, free, contract) x (batch, contract, free) for matmul."""
    (lc, rc), (lb, rb) = dimension_numbers
    lhs_free = tuple(_remaining(lhs_ndim, lc, lb))
    rhs_free = tuple(_remaining(rhs_ndim, rc, rb))
    return (tuple(lb) + lhs_free + tuple(lc), tuple(rb) + tuple(rc) + rhs_free,
            lhs_free, rhs_free)


def _dot_general_impl(lhs, rhs, *, dimension_numbers, precision, preferred_element_type,
                      out_sharding):
    """dot_general as one (batched) BLAS matmul on transposed *views*: operands are only
    copied when a group of several dimensions must be merged."""
    (lc, rc), (lb, rb) = dimension_numbers
    dt = _dot_dtype(lhs.dtype, rhs.dtype, preferred_element_type)
    compute = _einsum_dtype(dt)
    if lhs.dtype != compute or rhs.dtype != compute:
        lhs, rhs = lhs.astype(compute, copy=False), rhs.astype(compute, copy=False)
    if not lb and lhs.ndim <= 2 and rhs.ndim <= 2 and len(lc) == 1:
        # matrix/vector products: BLAS reads transposed views directly
        a = lhs.T if (lhs.ndim == 2 and lc[0] == 0) else lhs
        c = rhs.T if (rhs.ndim == 2 and rc[0] == 1) else rhs
        out = a @ c
        return out if out.dtype == dt else out.astype(dt)
    lperm, rperm, lfree, rfree = _dot_plan(dimension_numbers, lhs.ndim, rhs.ndim)
    bshape = tuple(lhs.shape[d] for d in lb)
    m_shape = tuple(lhs.shape[d] for d in lfree)
    n_shape = tuple(rhs.shape[d] for d in rfree)
    k = math.prod(lhs.shape[d] for d in lc)
    b, m, n = math.prod(bshape), math.prod(m_shape), math.prod(n_shape)
    L = _as_3d(np.transpose(lhs, lperm), (b, m, k), len(lb), len(lfree), len(lc))
    R = _as_3d(np.transpose(rhs, rperm), (b, k, n), len(rb), len(rc), len(rfree))
    out = np.matmul(L[0], R[0]) if b == 1 else np.matmul(L, R)
    return out.reshape(bshape + m_shape + n_shape).astype(dt, copy=False)


def _as_3d(x, shape3, n0, n1, n2):
    """x (grouped dims in order) as a 3-D array, by views when every group has <= 1 dim."""
    if n0 <= 1 and n1 <= 1 and n2 <= 1:
        shape = list(x.shape)
        for axis, n in enumerate((n0, n1, n2)):
            if n == 0:
                shape.insert(axis, 1)
        return x.reshape(shape)
    return x.reshape(shape3)


def _ranges_like(*xs):
    start = 0
    for x in xs:
        n = len(x)
        yield list(range(start, start + n))
        start += n


@functools.lru_cache(maxsize=1024)
@functools.lru_cache(maxsize=1024)
def _dot_transpose_plan(dimension_numbers, x_ndim, y_ndim, swap_ans):
    """(dimension numbers of ct . y, the permutation back to x's layout)."""
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    x_kept = _remaining(x_ndim, x_contract, x_batch)
    y_kept = _remaining(y_ndim, y_contract, y_batch)
    if swap_ans:
        ans_batch, ans_y, _ = _ranges_like(x_batch, y_kept, x_kept)
    else:
        ans_batch, _, ans_y = _ranges_like(x_batch, x_kept, y_kept)
    dims = ((tuple(ans_y), tuple(y_kept)), (tuple(ans_batch), tuple(y_batch)))
    x_contract_sorted_by_y = list(np.take(x_contract, np.argsort(y_contract)))
    unsorted_axes = list(x_batch) + x_kept + x_contract_sorted_by_y
    out_axes = tuple(int(a) for a in np.argsort(unsorted_axes))
    return dims, out_axes


def _dot_transpose_lhs(g, x, y, *, dimension_numbers, precision, preferred_element_type,
                       out_sharding, swap_ans=False):
    x_aval = x.aval
    dims, out_axes = _dot_transpose_plan(dimension_numbers, x_aval.ndim, np.ndim(y),
                                         swap_ans)
    out = dot_general(g, y, dims, precision=precision,
                      preferred_element_type=preferred_element_type)
    x_bar = shapes.transpose(out, out_axes)
    if core.get_aval(x_bar).dtype != x_aval.dtype:
        x_bar = lax._convert_element_type(x_bar, x_aval.dtype, x_aval.weak_type)
    return x_bar


def _dot_transpose_rhs(g, x, y, *, dimension_numbers, precision, preferred_element_type,
                       out_sharding):
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    swapped = ((y_contract, x_contract), (y_batch, x_batch))
    return _dot_transpose_lhs(g, y, x, dimension_numbers=swapped, precision=precision,
                              preferred_element_type=preferred_element_type,
                              out_sharding=out_sharding, swap_ans=True)


def _dot_batch_dims(ndims, bdims, dimension_numbers):
    """Where vmapped dims go in a batched dot_general (JAX's choice): two vmapped operands
    gain a leading dot batch dimension in place; one becomes a free dimension."""
    (lc, rc), (lb, rb) = dimension_numbers
    ld, rd = bdims

    def bump(ds, b):
        return tuple(int(d) + (d >= b) for d in ds)

    if ld is not None and rd is not None:
        new = ((bump(lc, ld), bump(rc, rd)), ((ld, *bump(lb, ld)), (rd, *bump(rb, rd))))
        return new, 0
    if ld is not None:
        free = [d for d in range(ndims[0]) if d not in lb and d not in lc]
        out_d = len(lb) + sum(d < ld for d in free)
        return ((bump(lc, ld), rc), (bump(lb, ld), rb)), out_d
    free = [d for d in range(ndims[1]) if d not in rb and d not in rc]
    out_d = ndims[0] - len(lc) + sum(d < rd for d in free)
    return ((lc, bump(rc, rd)), (lb, bump(rb, rd))), out_d


def _dot_batch(axis_data, vals, dims, *, dimension_numbers, precision,
               preferred_element_type, out_sharding):
    (lhs, rhs), (ld, rd) = vals, dims
    ndims = (np.ndim(lhs) - (ld is not None), np.ndim(rhs) - (rd is not None))
    new, out_d = _dot_batch_dims(ndims, (ld, rd), dimension_numbers)
    out = dot_general_p.bind(lhs, rhs, dimension_numbers=new, precision=precision,
                             preferred_element_type=preferred_element_type,
                             out_sharding=None)
    return out, out_d


def _dot_general_lower(ctx, lhs, rhs, *, dimension_numbers, precision,
                       preferred_element_type, out_sharding):
    (lc, rc), (lb, rb) = dimension_numbers
    out = ctx.avals_out[0]
    fn = ctx.fn
    if lhs.aval.dtype != out.dtype:
        lhs = lowering.convert(fn, lhs, out.dtype)
    if rhs.aval.dtype != out.dtype:
        rhs = lowering.convert(fn, rhs, out.dtype)
    attr = (f"dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = "
            f"[{', '.join(map(str, lb))}], rhs_batching_dimensions = "
            f"[{', '.join(map(str, rb))}], lhs_contracting_dimensions = "
            f"[{', '.join(map(str, lc))}], rhs_contracting_dimensions = "
            f"[{', '.join(map(str, rc))}]>")
    # JAX always states the precision (DEFAULT for None), so the texts are equal
    names = _full_precision_names(precision)
    attr += ", precision_config = [" + ", ".join(
        f"#stablehlo<precision {p}>" for p in names) + "]"
    return fn.op1("stablehlo.dot_general", [lhs, rhs], out, attr)


def _full_precision_names(precision) -> tuple[str, str]:
    if precision is None:
        return ("DEFAULT", "DEFAULT")
    if not isinstance(precision, (tuple, list)):
        precision = (precision, precision)
    return tuple(p.name if p is not None else "DEFAULT" for p in precision)


def _dot_general_pp(eqn):
    params = {k: v for k, v in eqn.params.items() if v is not None}
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    params["dimension_numbers"] = ((list(lc), list(rc)), (list(lb), list(rb)))
    params.pop("out_sharding", None)
    return sorted(params.items())


dot_general_p = def_primitive(
    "dot_general", abstract_eval=_dot_general_abstract_eval, impl=_dot_general_impl,
    jvp=None, transpose=None, batch=_dot_batch, lower=_dot_general_lower, pp_params=_dot_general_pp)
ad.defbilinear(dot_general_p, _dot_transpose_lhs, _dot_transpose_rhs)


class Precision(enum.Enum):
    """`jax.lax.Precision`: the precision of a matrix product's operands."""

    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Precision.{self.name}"


_PRECISION_NAMES = {
    "default": Precision.DEFAULT, "bfloat16": Precision.DEFAULT,
    "fastest": Precision.DEFAULT, "high": Precision.HIGH, "bfloat16_3x": Precision.HIGH,
    "tensorfloat32": Precision.HIGH, "highest": Precision.HIGHEST,
    "float32": Precision.HIGHEST}


def canonicalize_precision(precision):
    """None, a Precision or its name, or a pair of them -> None or (lhs, rhs) Precisions,
    as JAX's."""
    if precision is None:
        return None
    if isinstance(precision, str):
        if precision.lower() not in _PRECISION_NAMES:
            raise ValueError(f"Unrecognized precision string {precision!r}")
        precision = _PRECISION_NAMES[precision.lower()]
    if isinstance(precision, Precision):
        return (precision, precision)
    if isinstance(precision, (tuple, list)) and len(precision) == 2 and all(
            isinstance(p, Precision) for p in precision):
        return tuple(precision)
    if isinstance(precision, (tuple, list)) and len(precision) == 2 and all(
            isinstance(p, str) for p in precision):
        return tuple(canonicalize_precision(p)[0] for p in precision)
    raise ValueError(f"Precision argument must be one of:\n- None,\n- a string, a "
                     f"Precision or a pair of them; got {precision!r}")


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None,
                out_sharding=None):
    precision = canonicalize_precision(precision)
    try:
        dn = _int_dimension_numbers(dimension_numbers)
    except TypeError:  # given as lists
        (lc, rc), (lb, rb) = dimension_numbers
        dn = _int_dimension_numbers(((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb))))
    if preferred_element_type is not None:
        preferred_element_type = dtypes.canonicalize_dtype(np.dtype(preferred_element_type))
    return dot_general_p.bind(lhs, rhs, dimension_numbers=dn, precision=precision,
                              preferred_element_type=preferred_element_type,
                              out_sharding=out_sharding)


@functools.lru_cache(maxsize=1024)
def _int_dimension_numbers(dimension_numbers):
    (lc, rc), (lb, rb) = dimension_numbers
    return ((tuple(int(d) for d in lc), tuple(int(d) for d in rc)),
            (tuple(int(d) for d in lb), tuple(int(d) for d in rb)))


def dot(lhs, rhs, precision=None, preferred_element_type=None):
    nl, nr = np.ndim(lhs), np.ndim(rhs)
    if nl not in (1, 2) or nr not in (1, 2):
        raise TypeError(f"Incompatible shapes for dot: got {np.shape(lhs)} and "
                        f"{np.shape(rhs)}.")
    return dot_general(lhs, rhs, (((nl - 1,), (0,)), ((), ())), precision,
                       preferred_element_type)


# ----------------------------------------------------------------------------------------
# Wrappers
# ----------------------------------------------------------------------------------------


def _axes(axes) -> tuple[int, ...]:
    """The axes as given (checked to be integers): JAX keeps NumPy ints in parameters."""
    axes = tuple(axes)
    for a in axes:
        operator.index(a)
    return axes


def reduce_sum(operand, axes: Sequence[int]):
    return reduce_sum_p.bind(operand, axes=_axes(axes), out_sharding=None)


def reduce_max(operand, axes):
    return reduce_max_p.bind(operand, axes=_axes(axes))


def reduce_min(operand, axes):
    return reduce_min_p.bind(operand, axes=_axes(axes))


def reduce_prod(operand, axes):
    return reduce_prod_p.bind(operand, axes=_axes(axes))


def reduce_and(operand, axes):
    return reduce_and_p.bind(operand, axes=_axes(axes))


def reduce_or(operand, axes):
    return reduce_or_p.bind(operand, axes=_axes(axes))


def reduce_xor(operand, axes):
    return reduce_xor_p.bind(operand, axes=_axes(axes))


def argmax(operand, axis: int, index_dtype):
    return argmax_p.bind(operand, axes=(int(axis),),
                         index_dtype=dtypes.canonicalize_dtype(np.dtype(index_dtype)))


def argmin(operand, axis: int, index_dtype):
    return argmin_p.bind(operand, axes=(int(axis),),
                         index_dtype=dtypes.canonicalize_dtype(np.dtype(index_dtype)))


def _cum(prim):
    def f(operand, axis: int = 0, reverse: bool = False):
        axis = operator.index(axis)
        if axis < 0:  # as in JAX: lax takes canonical axes only
            raise ValueError("XLA operations do not allow negative axes")
        return prim.bind(operand, axis=axis, reverse=bool(reverse))
    f.__name__ = prim.name
    return f


cumsum = _cum(cumsum_p)
cumprod = _cum(cumprod_p)
cummax = _cum(cummax_p)
cummin = _cum(cummin_p)
cumlogsumexp = _cum(cumlogsumexp_p)



from didax._src.lax.sorting import sort, sort_key_val, sort_p  # noqa: E402,F401 - re-exported

# lax.lax's rules call reduce_sum; bind it directly (no per-call import).
lax.reduce_sum = reduce_sum
shapes.reduce_sum = reduce_sum
