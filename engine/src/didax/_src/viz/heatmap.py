"""Heatmap thumbnails of arrays for trace cards (`Heatmap` in the protocol): at most 32 x 32
cells, each the mean of a block of elements, quantised to two hex digits between the finite
minimum and maximum of the cells. A 1-D array is one row; above rank 2 the picture is the
2-D slice at index 0 of every leading axis, named in `slice`. Complex arrays show their
magnitudes; a cell holding any non-finite element is "--".

Imports NumPy only.
"""

from __future__ import annotations

import numpy as np

MAX_CELLS = 32


def heatmap(value) -> dict | None:
    """The Heatmap dict of an array of rank >= 1 (None for scalars, empty or non-numeric
    arrays)."""
    a = np.asarray(value)
    if a.ndim == 0 or a.size == 0 or a.dtype.kind not in "biufc":
        return None
    where = None
    if a.ndim > 2:
        where = "[" + ", ".join(["0"] * (a.ndim - 2) + [":", ":"]) + "]"
        a = a[(0,) * (a.ndim - 2)]
    if a.ndim == 1:
        a = a[None, :]
    x = np.abs(a) if a.dtype.kind == "c" else a.astype(np.float64)
    cells, bad, block = _block_means(x)
    good = cells[~bad]
    # (+ 0.0: a -0.0 bound prints as 0)
    lo, hi = (float(good.min()) + 0.0, float(good.max()) + 0.0) if good.size else (0.0, 0.0)
    return {"rows": int(cells.shape[0]), "cols": int(cells.shape[1]), "block": block,
            "lo": lo, "hi": hi, "slice": where, "cells": _encode(cells, bad, lo, hi)}


def _block_means(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """(cell means, cells holding a non-finite element, [rows, cols] per block)."""
    r, c = x.shape
    if r <= MAX_CELLS and c <= MAX_CELLS:  # one element per cell
        finite = np.isfinite(x)
        return (x if finite.all() else np.where(finite, x, 0.0)), ~finite, [1, 1]
    br, bc = -(-r // MAX_CELLS), -(-c // MAX_CELLS)
    rows, cols = -(-r // br), -(-c // bc)
    finite = np.isfinite(x)
    padded = np.zeros((rows * br, cols * bc))
    padded[:r, :c] = np.where(finite, x, 0.0)
    count = np.zeros_like(padded)
    count[:r, :c] = 1.0
    nonfinite = np.zeros(padded.shape, bool)
    nonfinite[:r, :c] = ~finite

    def per_block(m):
        return m.reshape(rows, br, cols, bc).sum(axis=(1, 3))

    sums, counts = per_block(padded), per_block(count)
    return sums / np.maximum(counts, 1.0), per_block(nonfinite) > 0, [br, bc]


def _encode(cells: np.ndarray, bad: np.ndarray, lo: float, hi: float) -> str:
    span = hi - lo
    if span > 0 and np.isfinite(span):
        q = np.clip(np.rint((cells - lo) / span * 255.0), 0, 255).astype(np.int64)
    else:
        q = np.full(cells.shape, 128, np.int64)
    text = q.astype(np.uint8).tobytes().hex()
    if not bad.any():
        return text
    digits = [text[2 * i:2 * i + 2] for i in range(q.size)]
    for i in np.flatnonzero(bad.reshape(-1)):
        digits[i] = "--"
    return "".join(digits)
