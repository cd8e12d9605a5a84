"""`jax_debug_nans` / `jax_debug_infs`: NaN and Inf checks as JAX makes them.

JAX checks the outputs of every eagerly applied primitive (dispatch._check_special: a
FloatingPointError naming the primitive) and of every top-level `jit` call; a jit whose
output holds a NaN prints a note and calls its function de-optimized (as if `jit` were
removed), so the primitive that made the NaN raises (api_util.maybe_recursive_nan_check).
jnp functions that JAX wraps in `jit` get the same treatment here when called eagerly.
May import config, tree_util and NumPy.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from didax._src.config import config
from didax._src.tree_util import tree_leaves

ACTIVE = [False]  # either flag on: kept by a config observer, one lookup per eager op
_SUPPRESSED = [0]  # inside an eager jnp function JAX jits: its ops are not checked alone

_NOTE = ("--------------------\nFor simplicity, JAX has removed its internal frames from the "
         "traceback of the following exception. Set JAX_TRACEBACK_FILTERING=off to include "
         "these.")
_DEOPT_FAILED = (
    "Because jax_config.debug_nans.value and/or config.jax_debug_infs is set, the "
    "de-optimized function (i.e., the function as if the `jit` decorator were removed) was "
    "called in an attempt to get a more precise error message. However, the de-optimized "
    "function did not produce invalid values during its execution. This behavior can result "
    "from `jit` optimizations causing the invalid value to be produced. It may also arise "
    "from having nan/inf literals as inputs or outputs, like "
    "`jax.jit(lambda ...: jax.numpy.nan)(...)`. \n\nIt may be possible to avoid the invalid "
    "value by removing the `jit` decorator, at the cost of losing optimizations. \n\nIf you "
    "see this error, consider opening a bug report at https://github.com/jax-ml/jax.")


def _update(*_) -> None:
    ACTIVE[0] = bool(config.jax_debug_nans or config.jax_debug_infs)


config.add_observer(_update)


def special_kind(values) -> str | None:
    """'nan' or 'inf' when a floating value among values holds one that a flag checks."""
    for v in values:
        dt = getattr(v, "dtype", None)
        if dt is None or not np.issubdtype(dt, np.inexact):
            continue
        a = np.asarray(v)
        if config.jax_debug_nans and np.isnan(a).any():
            return "nan"
        if config.jax_debug_infs and np.isinf(a).any():
            return "inf"
    return None


def _error(msg: str) -> FloatingPointError:
    e = FloatingPointError(msg)
    e.add_note(_NOTE)  # what JAX's traceback filtering adds on the way out of its API
    return e


def check_primitive(name: str, out) -> None:
    """After an eager primitive: raise if its output holds a checked special value."""
    if _SUPPRESSED[0]:
        return
    ty = special_kind(out if isinstance(out, (list, tuple)) else (out,))
    if ty is not None:
        raise _error(f"invalid value ({ty}) encountered in {name}")


def check_jit(fun: Callable, args, kwargs, outs) -> None:
    """After a top-level jit call: on a special value, run fun de-optimized (its own ops
    raise), or raise saying that the de-optimized function did not."""
    ty = special_kind(tree_leaves(outs))
    if ty is None:
        return
    print("Invalid nan value encountered in the output of a jax.jit function. Calling the "
          "de-optimized version.")
    try:
        fun(*args, **kwargs)
    except (FloatingPointError, ZeroDivisionError) as e:
        raise e from None
    name = getattr(fun, "__name__", "fun")  # JAX's text: str() of its internal error
    raise _error(f"('jit({name})', '{ty}'). " + _DEOPT_FAILED) from None


def eager_like_jit(fun: Callable, args, kwargs):
    """An eager call of a jnp function that JAX wraps in `jit`, with a flag on: its ops run
    unchecked, then its outputs are checked as a jit's are."""
    _SUPPRESSED[0] += 1
    try:
        out = fun(*args, **kwargs)
    finally:
        _SUPPRESSED[0] -= 1
    if not _SUPPRESSED[0]:
        check_jit(fun, args, kwargs, out)
    return out
