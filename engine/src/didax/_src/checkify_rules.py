"""The checkify interpreter: evaluates a jaxpr while threading an `Error` value through it.

Each equation is re-bound under the current trace (so checkify composes with jit, vmap and
grad around it) by its rule in `error_checks`, the table this module owns:
rule(error, enabled_errors, *invals, **params) -> (error, outvals). Primitives without a
rule are bound as they are. The rules here are JAX's automatic checks — a NaN produced by a
floating-point primitive, a division by zero, an out-of-bounds index of gather, scatter,
dynamic_slice and dynamic_update_slice — and the discharge of `check_p` (a user check
becomes part of the error value). Higher-order primitives' rules live in checkify_control.

`checkify_subjaxpr` traces the checkified version of a closed jaxpr (error leaves first,
in and out), which those rules bind in place of the original.

May import core, the interpreters, lax, numpy, tree_util, source_info, checkify_errors.
"""

from __future__ import annotations

import contextlib
import functools
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from didax._src import core, dtypes
from didax._src.checkify_errors import (
    DivisionByZeroError,
    Error,
    FailedCheckError,
    NaNError,
    OOBError,
    assert_func,
    check_p,
    get_traceback,
    init_error,
    update_error,
)
from didax._src.core import ClosedJaxpr, Literal, Primitive, source_info_override
from didax._src.interpreters import partial_eval as pe
from didax._src.lax import (
    convolution,
    dynamic_slicing,
    fft,
    parallel,
    reductions,
    shapes,
    slicing,
    special,
    windowed_reductions,
)
from didax._src.lax import lax as lax_
from didax._src.lax._define import all_primitives
from didax._src.numpy import array_creation as _ac
from didax._src.numpy import index_tricks as _it
from didax._src.numpy import manipulation as _mp
from didax._src.numpy import reductions as _red
from didax._src.numpy import ufuncs as _uf
from didax._src.numpy import ufuncs_math as _um
from didax._src.tree_util import tree_flatten, tree_unflatten

# (the modules declaring the primitives the automatic checks name)
_DECLARING = (convolution, fft, parallel, reductions, shapes, special, windowed_reductions)

# prim -> rule(error, enabled_errors, *invals, **params) -> (error, outvals)
error_checks: dict[Primitive, Callable] = {}


# ----------------------------------------------------------------------------------------
# The interpreter
# ----------------------------------------------------------------------------------------


def checkify_jaxpr(closed: ClosedJaxpr, enabled_errors, error: Error, *args
                   ) -> tuple[Error, list]:
    err_vals, err_tree = tree_flatten(error)
    return checkify_jaxpr_flat(closed.jaxpr, closed.consts, enabled_errors, err_tree,
                               *err_vals, *args)


def checkify_jaxpr_flat(jaxpr: core.Jaxpr, consts: Sequence[Any], enabled_errors, err_tree,
                        *args) -> tuple[Error, list]:
    """Evaluates jaxpr on args (after err_tree's leaves), threading the error through."""
    n = err_tree.num_leaves
    error = tree_unflatten(err_tree, list(args[:n]))
    env: dict = dict(zip(jaxpr.constvars, consts))
    env.update(zip(jaxpr.invars, args[n:]))

    hook = core.rebind_hook.fn  # (the playground's recorder follows values, as eval_jaxpr)
    if hook is not None:
        hook(jaxpr.invars, args[n:])

    def read(v):
        return v.val if type(v) is Literal else env[v]

    for eqn in jaxpr.eqns:
        invals = [read(v) for v in eqn.invars]
        rule = error_checks.get(eqn.primitive)
        tag = _NO_TAG if eqn.tag is None else core.tag_context(eqn.tag)
        with source_info_override(eqn.source_info), tag:
            if rule is None:
                outs = eqn.primitive.bind(*invals, **eqn.params)
            else:
                error, outs = rule(error, enabled_errors, *invals, **eqn.params)
        outs = outs if eqn.primitive.multiple_results else [outs]
        env.update(zip(eqn.outvars, outs))
        if hook is not None:
            hook(eqn.outvars, outs)
    return error, [read(v) for v in jaxpr.outvars]


_NO_TAG = contextlib.nullcontext()


class CheckedJaxpr:
    """A checkified closed jaxpr: (*error leaves, *args) -> (*error leaves, *outs)."""

    __slots__ = ("closed", "out_tree", "effects", "derived")

    def __init__(self, closed: ClosedJaxpr, out_tree, effects):
        self.closed, self.out_tree, self.effects = closed, out_tree, effects
        self.derived: dict = {}  # key -> a jaxpr derived from closed (memoized by rules)

    def derive(self, key, make: Callable):
        """make() once per key: rules re-use one derived jaxpr (and its compiled code)."""
        hit = self.derived.get(key)
        if hit is None:
            hit = self.derived[key] = make()
        return hit

    def unflatten(self, flat) -> tuple[Error, list]:
        return tree_unflatten(self.out_tree, list(flat))


_checked_cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def checkify_subjaxpr(closed: ClosedJaxpr, enabled_errors, err_tree,
                      in_avals: Sequence[Any]) -> CheckedJaxpr:
    """The checkified closed jaxpr for an incoming error of err_tree and arguments of
    in_avals (memoized, so a repeated call re-uses one jaxpr and its compiled code)."""
    key = (frozenset(enabled_errors), err_tree, tuple(in_avals))
    table = _checked_cache.setdefault(closed, {})
    hit = table.get(key)
    if hit is None:
        hit = table[key] = _trace_checked(closed, enabled_errors, err_tree, in_avals)
    return hit


def _trace_checked(closed, enabled_errors, err_tree, in_avals) -> CheckedJaxpr:
    box: dict = {}

    def fun(*args):
        error, outs = checkify_jaxpr_flat(closed.jaxpr, closed.consts, enabled_errors,
                                          err_tree, *args)
        flat, box["tree"] = tree_flatten((error, outs))
        box["effects"] = set(error._pred)
        return flat

    jaxpr, _, consts = pe.trace_to_jaxpr_dynamic(fun, list(in_avals), "checkify")
    return CheckedJaxpr(ClosedJaxpr(jaxpr, consts), box["tree"], box["effects"])


def error_avals(error: Error) -> tuple[list, Any]:
    """The error's leaves (as avals) and treedef."""
    leaves, tree = tree_flatten(error)
    return [core.get_aval(x) for x in leaves], tree


def merged_error(error: Error, closeds: Sequence[ClosedJaxpr], enabled_errors,
                 arg_avals: Sequence[Any]) -> Error:
    """error, plus placeholders for every error effect the checkified closeds may raise
    (so the error's structure is the same before and after any of them)."""
    err_avals, err_tree = error_avals(error)
    effects: set = set()
    for closed in closeds:
        effects |= checkify_subjaxpr(closed, enabled_errors, err_tree,
                                     [*err_avals, *arg_avals]).effects
    return error._add_placeholder_effects(effects)


# ----------------------------------------------------------------------------------------
# Automatic checks
# ----------------------------------------------------------------------------------------


def _prims(names: str) -> list[Primitive]:
    wanted = set(names.split())
    return [p for p in all_primitives if p.name in wanted]


def nan_error_check(prim, error, enabled_errors, *in_vals, **params):
    out = prim.bind(*in_vals, **params)
    return check_nans(prim, error, enabled_errors, out), out


def check_nans(prim, error, enabled_errors, out):
    if NaNError not in enabled_errors:
        return error

    def isnan(x):
        if isinstance(core.get_aval(x).dtype, dtypes.ExtendedDType):
            return False
        return _red.any(_um.isnan(x))

    any_nans = (_red.any(_ac.array([isnan(x) for x in out])) if prim.multiple_results
                else isnan(out))
    return assert_func(error, any_nans, NaNError(get_traceback(), prim.name))


# All primitives which can generate a NaN (JAX's list).
NAN_PRIMITIVES = (
    "acos acosh add asin asinh atan2 atan atanh bessel_i0e bessel_i1e cbrt "
    "conv_general_dilated cos cosh cumlogsumexp cummax cummin cumprod cumsum digamma "
    "dot_general erf_inv erf erfc exp expm1 fft igamma_grad_a igamma igammac integer_pow "
    "lgamma custom_linear_solve log1p log logistic mul pad pow psum reduce reduce_prod "
    "reduce_sum reduce_window reduce_window_sum regularized_incomplete_beta rem rng_uniform "
    "rsqrt sin sinh sqrt sub tan tanh")

for _prim in _prims(NAN_PRIMITIVES):
    error_checks[_prim] = functools.partial(nan_error_check, _prim)


def oob_payload(oob_mask, indices, dims_map, operand_shape):
    """[index, axis, axis size] of the first out-of-bounds index (for the message)."""
    flat_idx = _red.argmin(_uf.logical_not(oob_mask))
    multi_idx = _it.unravel_index(flat_idx, indices.shape)
    oob_axis = _ac.array(dims_map)[multi_idx[-1]]
    oob_axis_size = _ac.array(operand_shape)[oob_axis]
    oob_index = _mp.ravel(indices)[flat_idx]
    return _ac.array([oob_index, oob_axis, oob_axis_size], dtype=np.int32)


def _add_oob(error, oob_mask, indices, dims_map, operand_shape, prim_name):
    payload = oob_payload(oob_mask, indices, dims_map, operand_shape)
    return assert_func(error, _red.any(oob_mask),
                       OOBError(get_traceback(), prim_name, operand_shape, payload))


def dynamic_slice_error_check(error, enabled_errors, operand, *start_indices, slice_sizes):
    out = dynamic_slicing.dynamic_slice_p.bind(operand, *start_indices,
                                               slice_sizes=slice_sizes)
    if OOBError not in enabled_errors:
        return error, out
    start = _ac.array(start_indices)
    operand_dims = np.array(operand.shape, dtype=start.dtype)
    sizes = np.array(slice_sizes, dtype=start.dtype)
    oob_mask = (start < 0) | (start + sizes > operand_dims)
    return _add_oob(error, oob_mask, start, range(operand.ndim), operand.shape,
                    "dynamic_slice"), out


def dynamic_update_slice_error_check(error, enabled_errors, operand, update, *start_indices):
    out = dynamic_slicing.dynamic_update_slice_p.bind(operand, update, *start_indices)
    if OOBError not in enabled_errors:
        return error, out
    start = _ac.array(start_indices)
    oob_mask = (start < 0) | (start + np.array(update.shape) > np.array(operand.shape))
    return _add_oob(error, oob_mask, start, range(operand.ndim), operand.shape,
                    "dynamic_update_slice"), out


def gather_error_check(error, enabled_errors, operand, start_indices, **params):
    out = slicing.gather_p.bind(operand, start_indices, **params)
    if OOBError not in enabled_errors:
        return error, out
    dnums, slice_sizes = params["dimension_numbers"], params["slice_sizes"]
    index_map = np.array(dnums.start_index_map, dtype=np.int64)
    num_batch_dims = len(start_indices.shape) - 1
    upper = np.array(operand.shape)[index_map] - np.array(slice_sizes)[index_map]
    upper = np.expand_dims(upper, axis=tuple(range(num_batch_dims)))
    oob_mask = (start_indices < 0) | (start_indices > upper.astype(start_indices.dtype))
    return _add_oob(error, oob_mask, start_indices, dnums.start_index_map, operand.shape,
                    "gather"), out


def scatter_oob(operand, indices, updates, dnums):
    """(any index out of bounds, payload), clamping as scatter's lowering does."""
    slice_sizes, pos = [], 0
    for i in range(len(operand.shape)):
        if i in dnums.inserted_window_dims or i in dnums.operand_batching_dims:
            slice_sizes.append(1)
        else:
            slice_sizes.append(updates.shape[dnums.update_window_dims[pos]])
            pos += 1
    upper = np.array([operand.shape[i] - slice_sizes[i]
                      for i in dnums.scatter_dims_to_operand_dims], np.int64)
    upper = np.minimum(upper, np.iinfo(indices.dtype).max)
    upper = upper.astype(indices.dtype).reshape((1,) * (len(indices.shape) - 1) + (-1,))
    oob_mask = (indices < 0) | (indices > upper)
    payload = oob_payload(oob_mask, indices, dnums.scatter_dims_to_operand_dims,
                          operand.shape)
    return _red.any(oob_mask), payload


def scatter_error_check(prim, error, enabled_errors, operand, indices, updates, **params):
    out = prim.bind(operand, indices, updates, **params)
    if OOBError not in enabled_errors:
        return error, out
    oob, payload = scatter_oob(operand, indices, updates, params["dimension_numbers"])
    error = assert_func(error, oob, OOBError(get_traceback(), prim.name, operand.shape,
                                             payload))
    return check_nans(prim, error, enabled_errors, out), out


def div_error_check(error, enabled_errors, x, y):
    """Division by zero, then a NaN produced."""
    if DivisionByZeroError in enabled_errors:
        any_zero = _red.any(_uf.equal(y, 0))
        error = assert_func(error, any_zero, DivisionByZeroError(get_traceback()))
    return nan_error_check(lax_.div_p, error, enabled_errors, x, y)


error_checks[dynamic_slicing.dynamic_slice_p] = dynamic_slice_error_check
error_checks[dynamic_slicing.dynamic_update_slice_p] = dynamic_update_slice_error_check
error_checks[slicing.gather_p] = gather_error_check
for _prim in _prims("scatter scatter-add scatter-mul scatter-min scatter-max"):
    error_checks[_prim] = functools.partial(scatter_error_check, _prim)
error_checks[lax_.div_p] = div_error_check


# ----------------------------------------------------------------------------------------
# User checks
# ----------------------------------------------------------------------------------------


def check_discharge_rule(error, enabled_errors, *args, err_tree, debug):
    """A check of an enabled kind joins the error value (others are dropped, as in JAX)."""
    del debug
    new_error = tree_unflatten(err_tree, list(args))
    discharged = error
    for effect in new_error._pred:
        if effect.error_type in enabled_errors:
            discharged = update_error(discharged, new_error._pred[effect],
                                      new_error._code[effect], {},
                                      new_error._payload[effect], effect)
    discharged = discharged._replace(
        _metadata={**new_error._metadata, **discharged._metadata})
    return discharged, []


error_checks[check_p] = check_discharge_rule

__all__ = ["FailedCheckError", "checkify_jaxpr", "error_checks", "init_error"]
