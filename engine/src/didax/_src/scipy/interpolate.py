"""`jax.scipy.interpolate.RegularGridInterpolator` (linear or nearest interpolation on a
rectilinear grid, NaN or `fill_value` outside it) and `jax.scipy.cluster.vq.vq` (nearest
code-book entries) — with JAX's semantics (jax/_src/third_party/scipy/interpolate.py,
jax/_src/scipy/cluster/vq.py).

The interpolator is a pytree (grid, values and fill value are its leaves), so it passes
through jit and grad as JAX's does.
May import dtypes, tree_util, lax and numpy (the implementation modules).
"""

from __future__ import annotations

import itertools

import numpy as np

from didax._src import dtypes
from didax._src.numpy import array_creation as ac
from didax._src.numpy import lax_numpy as ln
from didax._src.numpy import linalg as jla
from didax._src.numpy import manipulation as man
from didax._src.numpy import reductions as red
from didax._src.numpy import sorting
from didax._src.numpy.util import check_arraylike, promote_dtypes_inexact
from didax._src.numpy.vectorize import vmap_simple
from didax._src.tree_util import register_pytree_node


def _points_array(points, ndim=None):
    """Sample points as one (..., ndim) array (from a tuple of coordinate arrays too)."""
    if isinstance(points, tuple) and len(points) == 1:
        points = points[0]
    if isinstance(points, tuple):
        parts = man.broadcast_arrays(*points)
        return man.stack([p.astype(dtypes.default_float_dtype()) for p in parts], axis=-1)
    check_arraylike("_ndim_coords_from_arrays", points)
    points = ac.asarray(points)
    if points.ndim == 1:
        points = points.reshape(-1, 1 if ndim is None else ndim)
    return points


def _check_method(method):
    if method not in ("linear", "nearest"):
        raise ValueError(f"method {method!r} is not defined")


class RegularGridInterpolator:
    """Interpolation of `values` given on the grid `points` (strictly increasing axes)."""

    def __init__(self, points, values, method="linear", bounds_error=False,
                 fill_value=np.nan):
        _check_method(method)
        self.method, self.bounds_error = method, bounds_error
        if bounds_error:
            raise NotImplementedError("`bounds_error` takes no effect under JIT")
        check_arraylike("RegularGridInterpolator", values)
        if len(points) > values.ndim:
            raise ValueError(f"there are {len(points)} point arrays, but values has "
                             f"{values.ndim} dimensions")
        values, = promote_dtypes_inexact(values)
        if fill_value is not None:
            check_arraylike("RegularGridInterpolator", fill_value)
            fill_value = ac.asarray(fill_value)
            if not dtypes.can_cast(fill_value.dtype, values.dtype, casting="same_kind"):
                raise ValueError("fill_value must be either 'None' or of a type compatible "
                                 "with values")
        self.fill_value = fill_value
        check_arraylike("RegularGridInterpolator", *points)
        self.grid = tuple(ac.asarray(p) for p in points)
        self.values = values

    def __call__(self, xi, method=None):
        method = self.method if method is None else method
        _check_method(method)
        ndim = len(self.grid)
        xi = _points_array(xi, ndim=ndim)
        if xi.shape[-1] != ndim:
            raise ValueError(f"the requested sample points xi have dimension {xi.shape[1]}, "
                             f"but this RegularGridInterpolator has dimension {ndim}")
        xi_shape = xi.shape
        xi = xi.reshape(-1, xi_shape[-1])
        indices, distances, outside = self._find_indices(xi.T)
        if method == "linear":
            result = self._evaluate_linear(indices, distances)
        else:
            result = self.values[tuple(ln.where(y <= 0.5, i, i + 1)
                                       for i, y in zip(indices, distances))]
        if self.fill_value is not None:
            shape = result.shape[:1] + (1,) * (result.ndim - 1)
            result = ln.where(outside.reshape(shape), self.fill_value, result)
        return result.reshape(xi_shape[:-1] + self.values.shape[ndim:])

    def _evaluate_linear(self, indices, distances):
        trailing = (slice(None),) + (None,) * (self.values.ndim - len(indices))
        out = ac.asarray(0.0)
        for corner in itertools.product(*[[i, i + 1] for i in indices]):
            weight = ac.asarray(1.0)
            for ci, i, y in zip(corner, indices, distances):
                weight = weight * ln.where(ci is i, 1 - y, y)
            out = out + self.values[corner] * weight[trailing]
        return out

    def _find_indices(self, xi):
        """Per axis: the grid cell below each point, the point's fractional position in
        it, and whether any coordinate lies outside the grid."""
        indices, distances = [], []
        outside = ac.zeros((xi.shape[1],), dtype=bool)
        for x, g in zip(xi, self.grid):
            i = sorting.searchsorted(g, x) - 1
            i = ln.clip(i, 0, g.size - 2)
            indices.append(i)
            distances.append((x - g[i]) / (g[i + 1] - g[i]))
            outside = outside | (x < g[0]) | (x > g[-1])
        return indices, distances, outside


register_pytree_node(
    RegularGridInterpolator,
    lambda obj: ((obj.grid, obj.values, obj.fill_value), (obj.method, obj.bounds_error)),
    lambda aux, children: RegularGridInterpolator(*children[:2], *aux, *children[2:]))


def vq(obs, code_book, check_finite: bool = True):
    """(code, dist): each observation's nearest code-book row and the distance to it."""
    del check_finite
    check_arraylike("scipy.cluster.vq.vq", obs, code_book)
    obs, book = promote_dtypes_inexact(obs, code_book)
    if obs.ndim != book.ndim:
        raise ValueError("Observation and code_book should have the same rank")
    if obs.ndim == 1:
        obs, book = obs[..., None], book[..., None]
    if obs.ndim != 2:
        raise ValueError("ndim different than 1 or 2 are not supported")
    dist = vmap_simple(lambda ob: jla.norm(ob[None] - book, axis=-1), (0,))(obs)
    code = red.argmin(dist, axis=-1)
    return code, vmap_simple(lambda d, c: d[c], (0, 0))(dist, code)
