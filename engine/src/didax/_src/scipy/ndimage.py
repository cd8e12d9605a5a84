"""`jax.scipy.ndimage.map_coordinates`: an array sampled at (fractional) coordinates by
nearest-neighbour (order 0) or multilinear (order 1) interpolation, with SciPy's boundary
modes (constant, nearest, wrap, mirror, reflect).

As in JAX (jax/_src/scipy/ndimage.py), each dimension contributes one or two
(index, weight) nodes and the result sums the gathered corners of every node combination,
so it differentiates with respect to the input and the coordinates.
May import dtypes, lax, jit and numpy (the implementation modules).
"""

from __future__ import annotations

import functools
import itertools
import operator

import numpy as np

from didax._src import dtypes
from didax._src.lax import lax
from didax._src.numpy import array_creation as ac
from didax._src.numpy import lax_numpy as ln
from didax._src.numpy import ufuncs as uf
from didax._src.numpy import ufuncs_math as um
from didax._src.numpy.util import jit_like_jax


def _mirror(index, size: int):
    s = size - 1  # half the period of a triangle wave
    return uf.abs((index + s) % (2 * s) - s)


def _reflect(index, size: int):
    return uf.floor_divide(_mirror(2 * index + 1, 2 * size + 1) - 1, 2)


_INDEX_FIXERS = {
    "constant": lambda index, size: index,
    "nearest": lambda index, size: ln.clip(index, 0, size - 1),
    "wrap": lambda index, size: index % size,
    "mirror": _mirror,
    "reflect": _reflect,
}


def _round_half_away_from_zero(a):
    return a if dtypes.issubdtype(a.dtype, np.integer) else lax.round(a)


def _nearest_nodes(coordinate):
    index = _round_half_away_from_zero(coordinate).astype(np.int32)
    return [(index, coordinate.dtype.type(1))]


def _linear_nodes(coordinate):
    lower = um.floor(coordinate)
    upper_weight = coordinate - lower
    index = lower.astype(np.int32)
    return [(index, 1 - upper_weight), (index + 1, upper_weight)]


def _nodes_per_dimension(coordinates, shape, order, mode):
    """For each dimension, its (fixed index, in bounds (or True), weight) nodes."""
    fix = _INDEX_FIXERS.get(mode)
    if fix is None:
        raise NotImplementedError(
            f"jax.scipy.ndimage.map_coordinates does not yet support mode {mode}. "
            f"Currently supported modes are {set(_INDEX_FIXERS)}.")
    if order not in (0, 1):
        raise NotImplementedError("jax.scipy.ndimage.map_coordinates currently requires "
                                  "order<=1")
    nodes_of = _nearest_nodes if order == 0 else _linear_nodes
    out = []
    for coordinate, size in zip(coordinates, shape):
        out.append([(fix(index, size),
                     (0 <= index) & (index < size) if mode == "constant" else True, weight)
                    for index, weight in nodes_of(coordinate)])
    return out


@jit_like_jax("_map_coordinates", static_argnames=("order", "mode", "cval"), eager_compiled=True)
def _map_coordinates(input, coordinates, order, mode, cval):
    x = ac.asarray(input)
    coordinates = [ac.asarray(c) for c in coordinates]
    cval = ac.asarray(cval, x.dtype)
    if len(coordinates) != x.ndim:
        raise ValueError("coordinates must be a sequence of length input.ndim, but "
                         f"{len(coordinates)} != {x.ndim}")
    terms = []
    for corner in itertools.product(*_nodes_per_dimension(coordinates, x.shape, order, mode)):
        indices, valid, weights = zip(*corner)
        value = x[tuple(indices)]
        if not all(v is True for v in valid):
            value = ln.where(functools.reduce(operator.and_, valid), value, cval)
        terms.append(functools.reduce(operator.mul, weights) * value)
    result = functools.reduce(operator.add, terms)
    if dtypes.issubdtype(x.dtype, np.integer):
        result = _round_half_away_from_zero(result)
    return result.astype(x.dtype)


def map_coordinates(input, coordinates, order: int, mode: str = "constant", cval=0.0):
    """input sampled at `coordinates` (one array of positions per dimension of input)."""
    return _map_coordinates(input, coordinates, order, mode, cval)
