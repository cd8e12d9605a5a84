"""Values for the playground's trace cards: bounded JSON summaries of arrays (statistics
over finite elements, NaN/Inf counts, a preview of the first elements and a heatmap
thumbnail), and whether a program calls io_callbacks (whose results a re-evaluation with
muted callbacks cannot know).

May import core, dtypes, viz.heatmap.
"""

from __future__ import annotations

import math

import numpy as np

from didax._src import dtypes
from didax._src.core import Jaxpr
from didax._src.viz.heatmap import heatmap

PREVIEW = 16


def _finite_float(x: float) -> float | str:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def _preview(flat: np.ndarray) -> list:
    """The first elements as JSON items: bools, ints, floats ("nan"/"inf" as strings),
    complex numbers as "1+2j"."""
    head = flat[:PREVIEW]
    kind = head.dtype.kind
    if kind == "c":
        return [f"{c.real:g}{c.imag:+g}j" for c in head.tolist()]
    if kind in "biu":
        return head.tolist()
    return [_finite_float(float(x)) for x in head.astype(np.float64).tolist()]


def summarize(value) -> dict:
    """A ValueSummary of any array-like (statistics over finite elements)."""
    try:
        arr = np.asarray(value)
        if arr.dtype == object:
            raise TypeError("not an array")
    except Exception:  # noqa: BLE001 - summaries describe whatever they are given
        arr = np.zeros((0,))
    dtype = arr.dtype
    flat = arr.reshape(-1)
    opaque = dtype == dtypes.float0 or dtype.kind == "V" and dtype.name != "bfloat16"
    out = {"shape": list(arr.shape), "dtype": _dtype_name(dtype),
           "min": None, "max": None, "mean": None, "norm": None, "nan_count": 0,
           "inf_count": 0, "preview": [] if opaque else _preview(flat),
           "truncated": bool(flat.size > PREVIEW) and not opaque}
    out["heatmap"] = heatmap(arr) if arr.ndim and not opaque else None
    if flat.size == 0 or opaque:  # (float0 tangents have no elements to show)
        return out
    _statistics(out, flat, dtype)
    return out


def _statistics(out: dict, flat: np.ndarray, dtype) -> None:
    numeric = flat.astype(np.complex128 if dtype.kind == "c" else np.float64)
    if dtype.kind in "fcV":
        finite = np.isfinite(numeric)
        if not finite.all():
            nan = int(np.isnan(numeric).sum())
            out["nan_count"], out["inf_count"] = nan, int(numeric.size - finite.sum()) - nan
            numeric = numeric[finite]
    if numeric.size == 0:
        return
    mag = np.abs(numeric) if dtype.kind == "c" else numeric
    out["min"] = float(mag.min())
    out["max"] = float(mag.max())
    out["mean"] = float(mag.mean())
    out["norm"] = float(np.sqrt(np.vdot(mag, mag).real))


def _dtype_name(dt) -> str:
    return "float0" if dt == dtypes.float0 else np.dtype(dt).name


def has_io(jaxpr: Jaxpr) -> bool:
    """Whether the program calls io_callbacks (whose results a re-evaluation cannot know)."""
    return any(getattr(e, "name", "") in ("IO", "OrderedIO") for e in jaxpr.effects)
