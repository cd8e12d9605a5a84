"""`ravel_pytree`: every leaf of a pytree raveled and concatenated into one vector (of the
leaves' promoted dtype), with the inverse function.

May import the libraries below it: numpy (didax.numpy's implementation), lax, tree_util.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from didax._src import dtypes
from didax._src.lax import lax
from didax._src.numpy import manipulation as jmanip
from didax._src.numpy import util as jutil
from didax._src.tree_util import tree_flatten, tree_unflatten


def ravel_pytree(pytree: Any) -> tuple[Any, Callable]:
    """(flat vector, unravel) with unravel(flat) rebuilding the pytree."""
    leaves, treedef = tree_flatten(pytree)
    flat, unravel_list = _ravel_list(leaves)
    return flat, functools.partial(_unravel_pytree, treedef, unravel_list)


def _unravel_pytree(treedef, unravel_list, flat):
    return tree_unflatten(treedef, unravel_list(flat))


def _ravel_list(leaves: list) -> tuple[Any, Callable]:
    if not leaves:
        return jutil.to_array(np.zeros((0,), np.float32)), lambda _: []
    from_dtypes = tuple(dtypes.dtype(x, canonicalize=True) for x in leaves)
    to_dtype = dtypes.result_type(*from_dtypes)
    shapes = [np.shape(x) for x in leaves]
    sizes = [int(np.prod(s, dtype=np.int64)) for s in shapes]
    ends = tuple(int(i) for i in np.cumsum(sizes))
    parts = [jmanip.ravel(lax.convert_element_type(x, to_dtype)) for x in leaves]
    flat = jmanip.concatenate(parts)
    return flat, functools.partial(_unravel_list, ends, shapes, from_dtypes, to_dtype)


def _unravel_list(ends, shapes, from_dtypes, to_dtype, flat):
    got = dtypes.dtype(flat)
    if got != to_dtype:
        raise TypeError(f"unravel function given array of dtype {got} but expected dtype "
                        f"{to_dtype}, the dtype of the raveled array given to ravel_pytree "
                        f"(the promoted dtype of its leaves)")
    if np.shape(flat) != (ends[-1],):
        raise ValueError(f"The unravel function expected an array of shape {(ends[-1],)}, "
                         f"got shape {np.shape(flat)}.")
    chunks = jmanip.split(flat, list(ends[:-1]))
    return [lax.convert_element_type(jmanip.reshape(c, s), dt)
            for c, s, dt in zip(chunks, shapes, from_dtypes)]
