"""Convolutions: `lax.conv_general_dilated` and its wrappers (`conv`,
`conv_with_general_padding`, `conv_transpose`), the dimension-number helpers
(`ConvDimensionNumbers`, `conv_dimension_numbers`, `conv_general_permutations`) and shape
helpers (`conv_shape_tuple`, `conv_general_shape_tuple`, `conv_transpose_shape_tuple`).

The `conv_general_dilated` primitive is declared once with all its rules:
- eager evaluation compiles the one convolution with XLA (lax.dispatch), so eager results
  are those of jit (while an eager tape records, the convolution runs on
  NumPy instead: lax/_conv_np);
- abstract evaluation with JAX's checks and messages;
- it is bilinear: the JVP and both transposes are convolutions again (reverse mode of the
  input is a convolution of the cotangent with the flipped kernel; of the kernel, a
  convolution of the input with the cotangent; feature and batch groups trade places);
- batching folds the vmapped axis into the batch, feature or group dimensions;
- lowering to `stablehlo.convolution` (complex operands as three real convolutions on CPU,
  as JAX lowers them, mirroring jax/_src/lax/convolution.py).

May import core, dtypes, the interpreters and lax.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from didax._src import core, dtypes
from didax._src.core import ShapedArray
from didax._src.interpreters import ad, tape
from didax._src.interpreters.ad import Zero
from didax._src.interpreters.lowering import i64_array
from didax._src.lax import _conv_np, lax, shapes, windowing
from didax._src.lax._define import (
    COMPILED,
    check_accepted,
    check_same_dtypes,
    def_primitive,
    on_numpy_while_taping,
)
from didax._src.lax.reductions import canonicalize_precision
from didax._src.lax.slicing import lower_traced

_any = (np.integer, np.floating, np.complexfloating, np.bool_)


class ConvDimensionNumbers(NamedTuple):
    """Where the batch, feature and spatial dimensions of a convolution's operands live.

    lhs_spec: (batch, feature, *spatial) dimension indices of the input; rhs_spec: (output
    feature, input feature, *spatial) of the kernel; out_spec: (batch, feature, *spatial)
    of the output.
    """

    lhs_spec: Sequence[int]
    rhs_spec: Sequence[int]
    out_spec: Sequence[int]


# ----------------------------------------------------------------------------------------
# dimension numbers
# ----------------------------------------------------------------------------------------


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers) -> ConvDimensionNumbers:
    """None, a triple of layout strings such as ('NHWC', 'HWIO', 'NHWC'), or a
    ConvDimensionNumbers -> the canonical ConvDimensionNumbers."""
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return dimension_numbers
    if len(lhs_shape) != len(rhs_shape):
        raise TypeError("convolution requires lhs and rhs ndim to be equal, got "
                        f"{len(lhs_shape)} and {len(rhs_shape)}.")
    if dimension_numbers is None:
        iota = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(iota, iota, iota)
    if not isinstance(dimension_numbers, (list, tuple)):
        raise TypeError("convolution dimension_numbers must be tuple/list or None, got "
                        f"{type(dimension_numbers)}.")
    if len(dimension_numbers) != 3:
        raise TypeError("convolution dimension_numbers list/tuple must be length 3, got "
                        f"{len(dimension_numbers)}.")
    if not all(isinstance(s, str) for s in dimension_numbers):
        raise TypeError("convolution dimension_numbers elements must be strings, got "
                        f"{tuple(map(type, dimension_numbers))}.")
    for i, spec in enumerate(dimension_numbers):
        if len(spec) != len(lhs_shape):
            raise TypeError(
                f"convolution dimension_numbers[{i}] must have len equal to the ndim of lhs "
                f"and rhs, got {len(spec)} for lhs and rhs shapes {lhs_shape} and "
                f"{rhs_shape}.")
    return ConvDimensionNumbers(*conv_general_permutations(dimension_numbers))


_LABELS = (("N", "C"), ("O", "I"), ("N", "C"))


def conv_general_permutations(dimension_numbers):
    """Layout strings -> (lhs, rhs, out) permutations into (batch/out-feature,
    feature/in-feature, *spatial), spatial dimensions ordered as in the kernel's string."""
    try:
        return _permutations(tuple(dimension_numbers))
    except TypeError:  # (unhashable: the checks below say what is wrong)
        return _permutations.__wrapped__(dimension_numbers)


@functools.lru_cache(maxsize=64)
def _permutations(dimension_numbers):
    lhs_s, rhs_s, out_s = dimension_numbers
    for i, (spec, (a, b)) in enumerate(zip(dimension_numbers, _LABELS)):
        if not spec.count(a) == spec.count(b) == 1:
            raise TypeError(f"convolution dimension_numbers[{i}] must contain the characters "
                            f"'{a}' and '{b}' exactly once, got {spec}.")
        if len(spec) != len(set(spec)):
            raise TypeError(f"convolution dimension_numbers[{i}] cannot have duplicate "
                            f"characters, got {spec}.")
    spatial = [set(s) - set(pair) for s, pair in zip(dimension_numbers, _LABELS)]
    if not spatial[0] == spatial[1] == spatial[2]:
        raise TypeError("convolution dimension_numbers elements must each have the same set "
                        f"of spatial characters, got {dimension_numbers}.")
    kernel_order = [c for c in rhs_s if c not in ("O", "I")]

    def perm(spec, pair):
        return ((spec.index(pair[0]), spec.index(pair[1]))
                + tuple(spec.index(c) for c in kernel_order))
    return tuple(perm(s, p) for s, p in zip((lhs_s, rhs_s, out_s), _LABELS))


def _spatial(shape, spec) -> tuple[int, ...]:
    return tuple(int(shape[d]) for d in spec[2:])


def _in_order(shape, perm) -> tuple[int, ...]:
    return tuple(int(shape[d]) for d in perm)


def _from_order(shape_in_order, perm) -> tuple[int, ...]:
    out = [0] * len(perm)
    for size, d in zip(shape_in_order, perm):
        out[d] = size
    return tuple(out)


# ----------------------------------------------------------------------------------------
# shapes
# ----------------------------------------------------------------------------------------


def conv_shape_tuple(lhs_shape, rhs_shape, strides, pads, batch_group_count=1):
    """The output shape of a convolution whose operands are in canonical (N, C, *spatial)
    and (O, I, *spatial) order (spatial sizes come out as NumPy integers, as in JAX)."""
    if isinstance(pads, str):
        pads = windowing.padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    if len(pads) != len(lhs_shape) - 2:
        raise TypeError("Wrong number of explicit pads for convolution: expected "
                        f"{len(lhs_shape) - 2}, got {len(pads)}.")
    padded = np.add(lhs_shape[2:], np.sum(np.array(pads).reshape(-1, 2), axis=1))
    if np.any(padded < 0):
        raise ValueError("Negative padding is larger than the size of the corresponding "
                         f"dimension: got padding={pads} for lhs_shape[2:]={lhs_shape[2:]}")
    space = tuple(max((p - k) // s + 1, 0) for p, k, s in zip(padded, rhs_shape[2:], strides))
    batch = lhs_shape[0]
    if batch_group_count > 1:
        batch = batch // batch_group_count
    return (batch, rhs_shape[0]) + space


def conv_general_shape_tuple(lhs_shape, rhs_shape, window_strides, padding,
                             dimension_numbers):
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    out = conv_shape_tuple(np.take(lhs_shape, lhs_perm), np.take(rhs_shape, rhs_perm),
                           window_strides, padding)
    return tuple(np.take(out, np.argsort(out_perm)))


def conv_transpose_shape_tuple(lhs_shape, rhs_shape, window_strides, padding,
                               dimension_numbers):
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    lhs_t, rhs_t = np.take(lhs_shape, lhs_perm), np.take(rhs_shape, rhs_perm)
    if isinstance(padding, str):
        padding = [_conv_transpose_padding(k, s, padding)
                   for k, s in zip(rhs_t[2:], window_strides)]
    space = [(i - 1) * s - k + 2 + sum(p)
             for i, k, s, p in zip(lhs_t[2:], rhs_t[2:], window_strides, padding)]
    return tuple(np.take((lhs_t[0], rhs_t[0], *space), np.argsort(out_perm)))


def _check_groups(lhs, rhs, dn, fgc, bgc) -> None:
    """JAX's checks of feature_group_count and batch_group_count (same messages)."""
    if not fgc > 0:
        raise ValueError("conv_general_dilated feature_group_count must be a positive "
                         f"integer, got {fgc}.")
    in_features = lhs.shape[dn.lhs_spec[1]]
    kernel_in, kernel_out = rhs.shape[dn.rhs_spec[1]], rhs.shape[dn.rhs_spec[0]]
    if in_features % fgc:
        raise ValueError("conv_general_dilated feature_group_count must divide lhs feature "
                         f"dimension size, but {fgc} does not divide {in_features}.")
    if in_features // fgc != kernel_in:
        raise ValueError(
            "conv_general_dilated lhs feature dimension size divided by feature_group_count "
            "must equal the rhs input feature dimension size, but "
            f"{in_features} // {fgc} != {kernel_in}.")
    if kernel_out % fgc:
        raise ValueError("conv_general_dilated rhs output feature dimension size must be a "
                         f"multiple of feature_group_count, but {kernel_out} is not a "
                         f"multiple of {fgc}.")
    if not bgc > 0:
        raise ValueError("conv_general_dilated batch_group_count must be a positive "
                         f"integer, got {bgc}.")
    batch = lhs.shape[dn.lhs_spec[0]]
    if bgc > 1 and batch % bgc:
        raise ValueError("conv_general_dilated batch_group_count must divide lhs batch "
                         f"dimension size, but {bgc} does not divide {batch}.")
    if kernel_out % bgc:
        raise ValueError("conv_general_dilated rhs output feature dimension size must be a "
                         f"multiple of batch_group_count, but {kernel_out} is not a "
                         f"multiple of {bgc}.")
    if bgc > 1 and fgc > 1:
        raise ValueError("At most one of batch_group_count and feature_group_count may be > "
                         f"1, got batch_group_count={bgc} and feature_group_count={fgc}")


def _conv_shape(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                dimension_numbers, feature_group_count, batch_group_count):
    dn = dimension_numbers
    if lhs.ndim != rhs.ndim:
        raise ValueError("conv_general_dilated lhs and rhs must have the same number of "
                         f"dimensions, but got {lhs.shape} and {rhs.shape}.")
    _check_groups(lhs, rhs, dn, feature_group_count, batch_group_count)
    if len(dn.rhs_spec) - 2 != len(window_strides):
        raise ValueError("conv_general_dilated window and window_strides must have the same "
                         f"number of dimensions, but got {len(dn.rhs_spec) - 2} and "
                         f"{len(window_strides)}")
    # (NumPy integers, as JAX's shape rule has them: its error messages show them)
    lhs_t = tuple(map(np.int64, windowing.dilate_shape(_in_order(lhs.shape, dn.lhs_spec),
                                                       lhs_dilation)))
    rhs_t = windowing.dilate_shape(_in_order(rhs.shape, dn.rhs_spec), rhs_dilation)
    out_t = conv_shape_tuple(lhs_t, rhs_t, window_strides, padding, batch_group_count)
    return _from_order(tuple(map(int, out_t)), dn.out_spec)


def validate_preferred_element_type(input_dtype, preferred) -> None:
    """JAX's compatibility rules between an operation's input and accumulation types."""
    def sub(dt, t):
        return dtypes.issubdtype(dt, t)
    if not (sub(input_dtype, np.integer) and sub(preferred, np.floating)):
        kinds = (np.integer, np.floating, np.complexfloating)
        if any(sub(input_dtype, t) and not sub(preferred, t) for t in kinds):
            raise TypeError(
                "Input type is incompatible with `preferred_element_type`. The compatible "
                "combinations of (input_type, preferred_element_type) are (integral, "
                "integral), (integral, floating), (floating, floating), (complex, complex.")
        if sub(input_dtype, np.signedinteger) and not sub(preferred, np.signedinteger):
            raise TypeError("`preferred_element_type` must have the same signedness as the "
                            "original type.")
    if np.dtype(preferred).itemsize < np.dtype(input_dtype).itemsize:
        raise TypeError("`preferred_element_type` must not be narrower than the original "
                        "type.")


def _conv_abstract_eval(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                        dimension_numbers, feature_group_count, batch_group_count, precision,
                        preferred_element_type, out_sharding):
    for i, a in enumerate((lhs, rhs)):
        check_accepted("conv_general_dilated", a, _any, i)
    check_same_dtypes("conv_general_dilated", lhs, rhs)
    shape = _conv_shape(lhs, rhs, window_strides=window_strides, padding=padding,
                        lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation,
                        dimension_numbers=dimension_numbers,
                        feature_group_count=feature_group_count,
                        batch_group_count=batch_group_count)
    dtype = lhs.dtype
    if preferred_element_type is not None:
        validate_preferred_element_type(dtype, preferred_element_type)
        dtype = np.dtype(preferred_element_type)
    return ShapedArray(shape, dtype, lhs.weak_type and rhs.weak_type)


# ----------------------------------------------------------------------------------------
# reverse mode
# ----------------------------------------------------------------------------------------


def _swap_first_two(spec) -> tuple[int, ...]:
    return (spec[1], spec[0], *spec[2:])


def split_axis(x, axis: int, groups: int):
    """Axis `axis` of size groups * m becomes two axes (groups, m)."""
    shape = list(core.get_aval(x).shape)
    shape[axis:axis + 1] = [groups, shape[axis] // groups]
    return shapes.reshape(x, shape)


def merge_axis(x, src: int, dst: int):
    """Axis src is folded into axis dst (numbered without src) as its major part."""
    shape = core.get_aval(x).shape
    perm = [d for d in range(len(shape)) if d != src]
    perm.insert(dst, src)
    new_shape = [s for d, s in enumerate(shape) if d != src]
    new_shape[dst] *= shape[src]
    return shapes.reshape(x, new_shape, perm)


def _int_pads(pads) -> tuple[tuple[int, int], ...]:
    return tuple((int(lo), int(hi)) for lo, hi in pads)


def _cast(x, dtype):
    if core.get_aval(x).dtype != dtype:
        return lax.convert_element_type(x, dtype)
    return x


def _conv_transpose_lhs(g, lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                        dimension_numbers, feature_group_count, batch_group_count, precision,
                        preferred_element_type, out_sharding):
    """The input's cotangent: the output cotangent convolved with the spatially flipped
    kernel whose feature roles are swapped (groups move to the kernel's input features)."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    lhs_aval, g_aval = lhs.aval, core.get_aval(g)
    rhs_shape = core.get_aval(rhs).shape
    groups = max(feature_group_count, batch_group_count)
    if groups > 1:
        rhs = merge_axis(split_axis(rhs, rhs_spec[0], groups), rhs_spec[0], rhs_spec[1])
    pads = windowing.transpose_lhs_pads(
        _spatial(lhs_aval.shape, lhs_spec), _spatial(rhs_shape, rhs_spec), window_strides,
        _spatial(g_aval.shape, out_spec), padding, lhs_dilation, rhs_dilation)
    kernel = _cast(shapes.rev(rhs, tuple(rhs_spec[2:])), g_aval.dtype)
    dn = ConvDimensionNumbers(out_spec, _swap_first_two(rhs_spec), lhs_spec)
    out = _bind(g, kernel, window_strides=tuple(lhs_dilation), padding=_int_pads(pads),
                lhs_dilation=tuple(window_strides), rhs_dilation=rhs_dilation,
                dimension_numbers=dn, feature_group_count=groups, batch_group_count=1,
                precision=precision, preferred_element_type=preferred_element_type)
    out = _cast(out, lhs_aval.dtype)
    if batch_group_count > 1:
        out = merge_axis(split_axis(out, lhs_spec[1], batch_group_count), lhs_spec[1],
                         lhs_spec[0])
    return out


def _conv_transpose_rhs(g, lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                        dimension_numbers, feature_group_count, batch_group_count, precision,
                        preferred_element_type, out_sharding):
    """The kernel's cotangent: the input convolved with the output cotangent, batch and
    feature roles exchanged (feature groups become batch groups and vice versa)."""
    g_aval, rhs_aval = core.get_aval(g), rhs.aval
    if any(d == 0 for d in g_aval.shape):
        return Zero(rhs_aval)  # (a convolution with an empty window is degenerate)
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    lhs_shape = core.get_aval(lhs).shape
    pads = windowing.transpose_rhs_pads(
        _spatial(lhs_shape, lhs_spec), _spatial(rhs_aval.shape, rhs_spec), window_strides,
        _spatial(g_aval.shape, out_spec), padding, lhs_dilation, rhs_dilation)
    dn = ConvDimensionNumbers(_swap_first_two(lhs_spec), _swap_first_two(out_spec),
                              _swap_first_two(rhs_spec))
    out = _bind(_cast(lhs, g_aval.dtype), g, window_strides=tuple(rhs_dilation),
                padding=_int_pads(pads), lhs_dilation=lhs_dilation,
                rhs_dilation=tuple(window_strides), dimension_numbers=dn,
                feature_group_count=batch_group_count, batch_group_count=feature_group_count,
                precision=precision, preferred_element_type=preferred_element_type)
    return _cast(out, rhs_aval.dtype)


# ----------------------------------------------------------------------------------------
# batching
# ----------------------------------------------------------------------------------------


def _fold_into_groups(x, bdim: int, dim: int, groups: int):
    """Folds the vmapped axis bdim into dimension `dim` (numbered without bdim), which is
    split in `groups` groups: the batch goes inside each group, so groups stay major."""
    at = dim + (bdim <= dim)
    x = split_axis(x, at, groups)
    x = merge_axis(x, bdim + (at < bdim), dim + 1)
    return merge_axis(x, dim, dim)


def _conv_batch(axis_data, vals, dims, **params):
    (lhs, rhs), (ld, rd) = vals, dims
    dn = params["dimension_numbers"]
    if ld is None and rd is None:
        return conv_general_dilated_p.bind(lhs, rhs, **params), None
    size = core.get_aval(lhs).shape[ld] if ld is not None else core.get_aval(rhs).shape[rd]
    if size == 0:
        return _empty_batch(lhs, rhs, ld, rd, params), 0
    fgc, bgc = params["feature_group_count"], params["batch_group_count"]
    out_batch, out_feature = dn.out_spec[0], dn.out_spec[1]
    if ld is not None and rd is not None:
        if bgc > 1:
            lhs, bgc = merge_axis(lhs, ld, dn.lhs_spec[0]), bgc * size
        else:
            lhs, fgc = merge_axis(lhs, ld, dn.lhs_spec[1]), fgc * size
        rhs = merge_axis(rhs, rd, dn.rhs_spec[0])
        out = _bind(lhs, rhs, **{**params, "feature_group_count": fgc,
                                 "batch_group_count": bgc})
        return split_axis(out, out_feature, size), out_feature
    if ld is not None:
        lhs = (merge_axis(lhs, ld, dn.lhs_spec[0]) if bgc == 1
               else _fold_into_groups(lhs, ld, dn.lhs_spec[0], bgc))
        out = _bind(lhs, rhs, **params)
        return split_axis(out, out_batch, size), out_batch
    if fgc == 1 and bgc == 1:
        out = _bind(lhs, merge_axis(rhs, rd, dn.rhs_spec[0]), **params)
        return split_axis(out, out_feature, size), out_feature
    groups = max(fgc, bgc)
    out = _bind(lhs, _fold_into_groups(rhs, rd, dn.rhs_spec[0], groups), **params)
    # output features are (groups, batch, per-group): move the batch in front
    out = split_axis(split_axis(out, out_feature, groups), out_feature + 1, size)
    return merge_axis(out, out_feature, out_feature + 1), out_feature


def _empty_batch(lhs, rhs, ld, rd, params):
    """A vmap over zero examples: the unbatched output shape with a leading 0."""
    def unbatched(x, d):
        a = core.get_aval(x)
        shape = a.shape if d is None else a.shape[:d] + a.shape[d + 1:]
        return ShapedArray(shape, a.dtype, a.weak_type)
    out = _conv_abstract_eval(unbatched(lhs, ld), unbatched(rhs, rd), **params)
    return shapes.full((0, *out.shape), 0, out.dtype)


# ----------------------------------------------------------------------------------------
# lowering
# ----------------------------------------------------------------------------------------


def _dim_labels(spec, first: str, second: str) -> str:
    labels = [""] * len(spec)
    labels[spec[0]], labels[spec[1]] = first, second
    for i, d in enumerate(spec[2:]):
        labels[d] = str(i)
    return f"[{', '.join(labels)}]"


def _conv_attrs(window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
                feature_group_count, batch_group_count, precision) -> str:
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    n = len(rhs_spec) - 2
    dn = (f"#stablehlo.conv<{_dim_labels(lhs_spec, 'b', 'f')}x"
          f"{_dim_labels(rhs_spec, 'o', 'i')}->{_dim_labels(out_spec, 'b', 'f')}>")
    pads = (f"dense<[{', '.join(f'[{int(lo)}, {int(hi)}]' for lo, hi in padding)}]>" if n
            else "dense<>")
    reversal = f"array<i1: {', '.join(['false'] * n)}>" if n else "array<i1>"
    prec = precision or (None, None)
    prec_attr = ", ".join(f"#stablehlo<precision {p.name if p is not None else 'DEFAULT'}>"
                          for p in prec)
    return (f"batch_group_count = {int(batch_group_count)} : i64, dimension_numbers = {dn}, "
            f"feature_group_count = {int(feature_group_count)} : i64, "
            f"lhs_dilation = {i64_array(lhs_dilation)}, padding = {pads} : tensor<{n}x2xi64>, "
            f"precision_config = [{prec_attr}], rhs_dilation = {i64_array(rhs_dilation)}, "
            f"window_reversal = {reversal}, window_strides = {i64_array(window_strides)}")


def _conv_lower(ctx, lhs, rhs, **params):
    if dtypes.is_complex(lhs.aval.dtype):
        # XLA:CPU runs complex convolutions as slow loops; JAX lowers them to three real
        # convolutions (Gauss's trick), and so do we, for the same numbers.
        return lower_traced(ctx, lambda x, y: _complex_conv(x, y, params), lhs, rhs)
    keys = ("window_strides", "padding", "lhs_dilation", "rhs_dilation", "dimension_numbers",
            "feature_group_count", "batch_group_count", "precision")
    attrs = _conv_attrs(*(params[k] for k in keys))
    return ctx.fn.op1("stablehlo.convolution", [lhs, rhs], ctx.avals_out[0], attrs)


def _complex_conv(x, y, params):
    pet = params["preferred_element_type"]
    real_params = {**params, "preferred_element_type":
                   None if pet is None else dtypes.real_dtype(pet)}

    def conv(a, b):
        return conv_general_dilated_p.bind(a, b, **real_params)
    x_re, x_im, y_re, y_im = lax.real(x), lax.imag(x), lax.real(y), lax.imag(y)
    k1 = conv(lax.add(x_re, x_im), y_re)
    k2 = conv(x_re, lax.sub(y_im, y_re))
    k3 = conv(x_im, lax.add(y_re, y_im))
    return lax.complex(lax.sub(k1, k3), lax.add(k1, k2))


conv_general_dilated_p = def_primitive(
    "conv_general_dilated", abstract_eval=_conv_abstract_eval, impl=COMPILED, jvp=None,
    transpose=None, batch=_conv_batch, lower=_conv_lower)
on_numpy_while_taping(  # eager reverse mode: see _conv_np
    conv_general_dilated_p, _conv_np.conv_on_numpy, _conv_np.fits)
ad.defbilinear(conv_general_dilated_p, _conv_transpose_lhs, _conv_transpose_rhs)
tape.each_pullbacks[conv_general_dilated_p] = _conv_np.pullback  # (eager reverse mode)


def _bind(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
          feature_group_count, batch_group_count, precision, preferred_element_type,
          out_sharding=None):
    return conv_general_dilated_p.bind(
        lhs, rhs, window_strides=tuple(window_strides), padding=tuple(padding),
        lhs_dilation=tuple(lhs_dilation), rhs_dilation=tuple(rhs_dilation),
        dimension_numbers=dimension_numbers, feature_group_count=feature_group_count,
        batch_group_count=batch_group_count, precision=precision,
        preferred_element_type=preferred_element_type, out_sharding=out_sharding)


# ----------------------------------------------------------------------------------------
# the public functions
# ----------------------------------------------------------------------------------------


def conv_general_dilated(lhs, rhs, window_strides: Sequence[int], padding,
                         lhs_dilation: Sequence[int] | None = None,
                         rhs_dilation: Sequence[int] | None = None,
                         dimension_numbers=None, feature_group_count: int = 1,
                         batch_group_count: int = 1, precision=None,
                         preferred_element_type=None, out_sharding=None) -> Any:
    """General n-dimensional convolution with strides, padding ('SAME', 'SAME_LOWER',
    'VALID' or (low, high) pairs), input (lhs) and kernel (rhs) dilation, feature and batch
    groups; `dimension_numbers` gives the layouts (default ('NCHW', 'OIHW', 'NCHW'))."""
    lhs_shape, rhs_shape = np.shape(lhs), np.shape(rhs)
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    n = len(lhs_shape) - 2
    if lhs_dilation is None:
        lhs_dilation = (1,) * n
    elif isinstance(padding, str) and any(d != 1 for d in lhs_dilation):
        raise ValueError("String padding is not implemented for transposed convolution using "
                         "this op. Please either exactly specify the required padding or use "
                         "conv_transpose.")
    if rhs_dilation is None:
        rhs_dilation = (1,) * (len(rhs_shape) - 2)
    if isinstance(padding, str):
        window = [windowing.dilate_dim(k, r)
                  for k, r in zip(_spatial(rhs_shape, dn.rhs_spec), rhs_dilation)]
        padding = windowing.padtype_to_pads(_spatial(lhs_shape, dn.lhs_spec), window,
                                            window_strides, padding)
    else:
        padding = windowing.explicit_pads(padding, "conv_general_dilated")
    if preferred_element_type is not None:
        preferred_element_type = dtypes.check_and_canonicalize_user_dtype(
            preferred_element_type, "conv_general_dilated")
    return _bind(lhs, rhs, window_strides=window_strides, padding=padding,
                 lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation, dimension_numbers=dn,
                 feature_group_count=feature_group_count, batch_group_count=batch_group_count,
                 precision=canonicalize_precision(precision),
                 preferred_element_type=preferred_element_type, out_sharding=out_sharding)


def conv(lhs, rhs, window_strides: Sequence[int], padding: str, precision=None,
         preferred_element_type=None):
    """conv_general_dilated in NCHW/OIHW layout with no dilation."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs, rhs, window_strides: Sequence[int], padding,
                              lhs_dilation: Sequence[int] | None,
                              rhs_dilation: Sequence[int] | None, precision=None,
                              preferred_element_type=None):
    """conv_general_dilated in NCHW/OIHW layout with explicit dilations."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation,
                                rhs_dilation=rhs_dilation, precision=precision,
                                preferred_element_type=preferred_element_type)


def _conv_transpose_padding(k: int, s: int, padding) -> tuple[int, int]:
    """(before, after) pads of the fractionally strided convolution that transposes a
    forward convolution of kernel size k, stride s and the given padding."""
    if padding == "SAME":
        total = k + s - 2
        before = k - 1 if s > k - 1 else -(-total // 2)
    elif padding == "VALID":
        total = k + s - 2 + max(k - s, 0)
        before = k - 1
    elif isinstance(padding, tuple):
        before, after = (k - p - 1 for p in padding)
        total = before + after
    else:
        raise ValueError(f"Invalid padding mode: {padding}")
    return before, total - before


_TRANSPOSE_LAYOUTS = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"),
                      4: ("NHWC", "HWIO", "NHWC"), 5: ("NHWDC", "HWDIO", "NHWDC")}


def conv_transpose(lhs, rhs, strides: Sequence[int], padding, rhs_dilation=None,
                   dimension_numbers=None, transpose_kernel: bool = False, precision=None,
                   preferred_element_type=None, use_consistent_padding: bool = False):
    """The N-d transposed ("fractionally strided") convolution, computed directly as an
    lhs-dilated convolution; layouts default to TensorFlow's (NHWC, HWIO, NHWC)."""
    ndim = len(np.shape(lhs))
    assert ndim == len(np.shape(rhs)) and ndim >= 2
    if dimension_numbers is None:
        if ndim not in _TRANSPOSE_LAYOUTS:
            raise ValueError("No 4+ dimensional dimension_number defaults.")
        dimension_numbers = _TRANSPOSE_LAYOUTS[ndim]
    dn = conv_dimension_numbers(np.shape(lhs), np.shape(rhs), dimension_numbers)
    kernel_space = _spatial(np.shape(rhs), dn.rhs_spec)
    if rhs_dilation is None:
        rhs_dilation = (1,) * (ndim - 2)
    if use_consistent_padding or padding in ("SAME", "VALID"):
        per_dim = [padding] * len(strides) if isinstance(padding, str) else padding
        pads = tuple(_conv_transpose_padding(windowing.dilate_dim(k, r), s,
                                             p if isinstance(p, str) else tuple(p))
                     for k, r, s, p in zip(kernel_space, rhs_dilation, strides, per_dim))
    else:
        pads = padding
    if transpose_kernel:
        rhs = shapes.rev(rhs, tuple(dn.rhs_spec[2:]))
        perm = list(range(ndim))
        perm[dn.rhs_spec[0]], perm[dn.rhs_spec[1]] = dn.rhs_spec[1], dn.rhs_spec[0]
        rhs = shapes.transpose(rhs, perm)
    return conv_general_dilated(lhs, rhs, (1,) * (ndim - 2), pads, strides, rhs_dilation, dn,
                                precision=precision,
                                preferred_element_type=preferred_element_type)
