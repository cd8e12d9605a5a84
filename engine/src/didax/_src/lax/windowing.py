"""Window geometry shared by convolutions and windowed reductions: padding types and their
explicit (low, high) pads (`lax.padtype_to_pads`), dilated and strided sizes, and the pads
of the transposed window operation that reverse mode needs.

Pure shape arithmetic on integers. May import dtypes only.
"""

from __future__ import annotations

import enum
import functools
import operator
from collections.abc import Sequence

import numpy as np


class PaddingType(enum.Enum):
    """`jax.lax.PaddingType`: the named padding schemes."""

    VALID = 1
    SAME = 2
    SAME_LOWER = 3


def padtype_to_pads(in_shape: Sequence[int], window_shape: Sequence[int],
                    window_strides: Sequence[int], padding) -> list[tuple[int, int]]:
    """(low, high) pads per dimension for 'VALID', 'SAME' (any odd pad at the end) or
    'SAME_LOWER' (any odd pad at the start); SAME keeps ceil(in / stride) outputs."""
    try:
        key = (tuple(map(int, in_shape)), tuple(map(int, window_shape)),
               tuple(map(int, window_strides)), padding)
        hash(key)
    except Exception:  # noqa: BLE001 (symbolic sizes, unhashable padding: not cached)
        return list(_pads.__wrapped__(in_shape, window_shape, window_strides, padding))
    return list(_pads(*key))


@functools.lru_cache(maxsize=256)
def _pads(in_shape, window_shape, window_strides, padding) -> tuple[tuple[int, int], ...]:
    if isinstance(padding, str):
        try:
            padding = PaddingType[padding.upper()]
        except KeyError as err:
            raise RuntimeError("Unrecognized padding type: expected 'VALID', 'SAME', or "
                               f"'SAME_LOWER', got {padding}.") from err
    if padding == PaddingType.VALID:
        return ((0, 0),) * len(in_shape)
    if padding not in (PaddingType.SAME, PaddingType.SAME_LOWER):
        raise TypeError(f"Unknown padding type: {padding}.")
    pads = []
    for n, k, s in zip(in_shape, window_shape, window_strides):
        n, k, s = int(n), int(k), int(s)
        out = -(-n // s)
        total = max((out - 1) * s + k - n, 0)
        small, big = total // 2, total - total // 2
        pads.append((small, big) if padding == PaddingType.SAME else (big, small))
    return tuple(pads)


# (Sizes keep their integer type, NumPy or Python, as JAX's shape helpers keep it: the
# shapes users print from stax's init functions show it.)


def dilate_dim(d: int, dilation: int) -> int:
    """The size of d elements with dilation - 1 holes between neighbours."""
    return d if dilation == 1 else max(1 + dilation * (d - 1), 0)


def stride_dim(d: int, window: int, stride: int) -> int:
    """How many windows of size `window` fit in d at the given stride."""
    return max((d - window) // stride + 1, 0)


def dilate_shape(shape: Sequence[int], dilation: Sequence[int]) -> tuple[int, ...]:
    if not all(d > 0 for d in dilation):
        raise TypeError(f"All dilations must be positive, got {tuple(dilation)}.")
    dilation = (1,) * (len(shape) - len(dilation)) + tuple(dilation)
    return tuple(dilate_dim(s, d) for s, d in zip(shape, dilation))


def explicit_pads(padding, what: str) -> tuple[tuple[int, int], ...]:
    """A sequence of (low, high) integer pairs, checked."""
    try:
        return tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
    except (ValueError, TypeError) as e:
        raise ValueError(f"padding argument to {what} should be a string or a sequence of "
                         f"(low, high) pairs, got {padding}") from e


def transpose_lhs_pads(in_shape, window_shape, window_strides, out_shape, padding,
                       lhs_dilation, rhs_dilation) -> list[tuple[int, int]]:
    """Pads of the window operation that maps output cotangents back onto the input:
    the cotangent is dilated by the strides and the window slides over it reversed."""
    lhs_d = dilate_shape(in_shape, lhs_dilation)
    rhs_d = dilate_shape(window_shape, rhs_dilation)
    out_d = dilate_shape(out_shape, window_strides)
    pads = []
    for n, k, o, (lo, _) in zip(lhs_d, rhs_d, out_d, padding):
        before = np.int64(k - lo - 1)  # (NumPy integers, as JAX computes them)
        pads.append((before, np.int64(n + k - 1 - o - before)))
    return pads


def transpose_rhs_pads(in_shape, window_shape, window_strides, out_shape, padding,
                       lhs_dilation, rhs_dilation) -> list[tuple[int, int]]:
    """Pads of the convolution of the input with the output cotangent that yields the
    kernel's cotangent."""
    if not in_shape:
        return []
    lhs_d = dilate_shape(in_shape, lhs_dilation)
    rhs_d = dilate_shape(window_shape, rhs_dilation)
    out_d = dilate_shape(out_shape, window_strides)
    return [(lo, (o - n) + (k - lo - 1))
            for n, k, o, (lo, _) in zip(lhs_d, rhs_d, out_d, padding)]
