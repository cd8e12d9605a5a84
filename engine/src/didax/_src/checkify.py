"""`jax.experimental.checkify`: functionalized run-time checks.

- `check(pred, msg, *fmt_args, **fmt_kwargs)` adds a user check. Eagerly a failing check
  raises `JaxRuntimeError`; it cannot be staged (jit) unless checkified.
- `checkify(f, errors=user_checks)` returns a function giving `(Error, out)`: f is traced
  (its arguments closed over, so Python values stay Python values, as in JAX) and the
  jaxpr is evaluated by the checkify interpreter (checkify_rules), which threads an error
  value through it and adds the enabled automatic checks (NaNs, division by zero,
  out-of-bounds indexing). The result composes with jit, vmap and grad in either order.
- `check_error(error)` raises an Error as `check` does (and is checkified like it).

May import the modules below it: checkify_errors, checkify_rules, checkify_control.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from didax._src import core
from didax._src.array import Array
from didax._src.checkify_control import error_checks  # noqa: F401 - registers the rules
from didax._src.checkify_errors import (
    BatchedError,
    DivisionByZeroError,
    Error,
    ErrorCategory,
    FailedCheckError,
    JaxException,
    JaxRuntimeError,
    NaNError,
    OOBError,
    all_checks,
    assert_func,
    automatic_checks,
    check_error_value,
    div_checks,
    float_checks,
    get_traceback,
    index_checks,
    init_error,
    nan_checks,
    user_checks,
)
from didax._src.checkify_rules import checkify_jaxpr_flat
from didax._src.checkify_shard import shard_map_error_check  # noqa: F401 - (and this one)
from didax._src.interpreters import partial_eval as pe
from didax._src.numpy import ufuncs as _uf
from didax._src.tree_util import tree_flatten, tree_leaves, tree_unflatten


def checkify(f: Callable, errors: frozenset = user_checks) -> Callable:
    """Functionalize `check` calls in `f`, and optionally add run-time error checks.

    Returns a function with f's arguments returning `(err, out)`: `err.get()` is None or
    the message of the first error, `err.throw()` raises it. `errors` selects the checks:
    user_checks (the default), nan_checks, div_checks, index_checks, or unions of them
    (float_checks, automatic_checks, all_checks)."""

    def checked_fun(*args, **kwargs):
        box: dict = {}

        def closed_f():  # the arguments are closed over, not turned into abstract values
            flat, box["tree"] = tree_flatten(f(*args, **kwargs))
            return flat

        jaxpr, _, consts = pe.trace_to_jaxpr_dynamic(closed_f, [], "checkify")
        _, err_tree = tree_flatten(init_error)
        error, out_flat = checkify_jaxpr_flat(jaxpr, consts, errors, err_tree)
        return error, tree_unflatten(box["tree"], out_flat)

    return checked_fun


def check(pred: Any, msg: str, *fmt_args, debug: bool = False, **fmt_kwargs) -> None:
    """Check a predicate, add an error with msg if predicate is False.

    An effect: it cannot be staged (jit, scan, ...) unless the function is checkified.
    `msg` may be a format string; fmt_args/fmt_kwargs (arrays, possibly traced) fill it
    with run-time values. With debug=True the check only acts under checkify."""
    _check(pred, msg, debug, *fmt_args, **fmt_kwargs)


def debug_check(pred: Any, msg: str, *fmt_args, **fmt_kwargs) -> None:
    """Check a predicate when running under checkify, otherwise is a no-op."""
    _check(pred, msg, True, *fmt_args, **fmt_kwargs)


def _check(pred, msg, debug, *fmt_args, **fmt_kwargs):
    if not is_scalar_pred(pred):
        prim_name = "debug_check" if debug else "check"
        raise TypeError(f"{prim_name} takes a scalar pred as argument, got {pred}")
    for arg in tree_leaves((fmt_args, fmt_kwargs)):
        if not isinstance(arg, (Array, core.Tracer, np.ndarray)):
            raise TypeError("Formatting arguments to checkify.check need to be PyTrees of "
                            f"arrays, but got {arg!r} of type {type(arg)}.")
    new_error = FailedCheckError(get_traceback(), msg, *fmt_args, **fmt_kwargs)
    error = assert_func(init_error, _uf.logical_not(pred), new_error)
    check_error_value(error, debug=debug)


def is_scalar_pred(pred) -> bool:
    return (isinstance(pred, bool) or
            isinstance(pred, (Array, core.Tracer)) and pred.shape == ()
            and pred.dtype == np.dtype("bool"))


def check_error(error: Error) -> None:
    """Raise an Exception if `error` represents a failure. Functionalized by checkify."""
    if not isinstance(error, Error):
        raise TypeError("check_error takes an Error as argument, "
                        f"got type {type(error)} instead.")
    check_error_value(error, debug=False)


__all__ = [
    "BatchedError", "DivisionByZeroError", "Error", "ErrorCategory", "FailedCheckError",
    "JaxException", "JaxRuntimeError", "NaNError", "OOBError", "all_checks",
    "automatic_checks", "check", "check_error", "checkify", "debug_check", "div_checks",
    "float_checks", "index_checks", "init_error", "nan_checks", "user_checks",
]
