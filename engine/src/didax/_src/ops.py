"""`jax.ops` segment reductions: `segment_sum/prod/max/min(data, segment_ids,
num_segments)` as a scatter of data rows into num_segments rows (ids out of range are
dropped, as JAX's default mode).

May import the libraries below it: numpy (didax.numpy's implementation), lax.
"""

from __future__ import annotations

import numpy as np

from didax._src import core, dtypes
from didax._src.numpy import util as jutil


def _segment(kind: str, data, segment_ids, num_segments, indices_are_sorted,
             unique_indices, mode):
    from didax._src.numpy import array_creation as creation  # noqa: PLC0415

    data = jutil.to_array(data)
    segment_ids = jutil.to_array(segment_ids)
    if not dtypes.is_int(dtypes.dtype(segment_ids)):
        raise TypeError(f"segment_ids must be an integer array, got "
                        f"{dtypes.dtype(segment_ids)}")
    if num_segments is None:
        ids = core.concrete_or_error(np.asarray, segment_ids,
                                     "segment_ids when num_segments is not given")
        num_segments = int(np.max(ids)) + 1 if ids.size else 0
    num_segments = int(num_segments)
    dt = dtypes.dtype(data)
    init = {"sum": 0, "prod": 1,
            "max": _lowest(dt), "min": _highest(dt)}[kind]
    out = creation.full((num_segments, *np.shape(data)[1:]), init, dt)
    ref = out.at[segment_ids]
    kw = dict(indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
              mode=mode or "drop")
    return {"sum": ref.add, "prod": ref.multiply, "max": ref.max, "min": ref.min}[kind](
        data, **kw)


def _lowest(dt):
    if dtypes.is_inexact(dt):
        return -np.inf
    if dt == np.bool_:
        return False
    return dtypes.iinfo(dt).min


def _highest(dt):
    if dtypes.is_inexact(dt):
        return np.inf
    if dt == np.bool_:
        return True
    return dtypes.iinfo(dt).max


def _segment_op(kind: str, doc: str):
    def op(data, segment_ids, num_segments=None, indices_are_sorted=False,
           unique_indices=False, bucket_size=None, mode=None):
        del bucket_size
        return _segment(kind, data, segment_ids, num_segments, indices_are_sorted,
                        unique_indices, mode)
    op.__name__ = op.__qualname__ = f"segment_{kind}"
    op.__doc__ = doc
    return op


segment_sum = _segment_op("sum", "Sums of data's rows per segment id.")
segment_prod = _segment_op("prod", "Products of data's rows per segment id.")
segment_max = _segment_op("max", "Maxima of data's rows per segment id (-inf, or the "
                                 "lowest value, when empty).")
segment_min = _segment_op("min", "Minima of data's rows per segment id (+inf, or the "
                                 "highest value, when empty).")
