"""`jax.closure_convert`: a function whose closed-over values that might be perturbed
(tracers of inexact type) become explicit trailing arguments, so a `custom_vjp` can
differentiate with respect to them. Concrete closed-over values stay closed over. The
conversion is traced once per function and input types (the converted function is the same
object each time, as JAX's cache makes it).

May import core, dtypes, the interpreters, api_util, tree_util, util.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

from didax._src import core, dtypes
from didax._src.api_util import flatten_fun_nokwargs, shaped_abstractify
from didax._src.interpreters import partial_eval as pe
from didax._src.tree_util import tree_flatten, tree_unflatten
from didax._src.util import merge_lists, partition_list

_cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def closure_convert(fun: Callable, *example_args) -> tuple[Callable, list]:
    """(converted, hoisted): converted(*args, *hoisted) == fun(*args)."""
    flat, in_tree = tree_flatten(example_args)
    avals = tuple(shaped_abstractify(x) for x in flat)
    try:
        table = _cache.setdefault(fun, {})
    except TypeError:
        return _convert(fun, in_tree, avals)[:2]
    key = (in_tree, avals)
    hit = table.get(key)
    if hit is None:
        hit = _convert(fun, in_tree, avals)
        if not hit[2]:  # (values of an enclosing trace are never reused)
            table[key] = hit
    return hit[0], hit[1]


def _maybe_perturbed(x) -> bool:
    """Any inexact tracer might carry a derivative (as JAX assumes)."""
    return isinstance(x, core.Tracer) and dtypes.is_inexact(core.get_aval(x).dtype)


def _convert(fun: Callable, in_tree, avals) -> tuple[Callable, list, bool]:
    """(converted, hoisted, whether it closes over tracers)."""
    flat_fun, store = flatten_fun_nokwargs(fun, in_tree)
    jaxpr, _, consts = pe.trace_to_jaxpr_dynamic(flat_fun, list(avals), "closure_convert")
    out_tree = store["out_tree"]
    perturbed = [_maybe_perturbed(c) for c in consts]
    closure, hoisted = partition_list(perturbed, consts)
    num_hoisted = len(hoisted)

    def converted_fun(*args_hconsts):
        n = len(args_hconsts) - num_hoisted
        args, hconsts = args_hconsts[:n], args_hconsts[n:]
        all_args, in_tree2 = tree_flatten(tuple(args))
        if in_tree != in_tree2:
            raise TypeError(f"The inputs to the closure produced by closure_convert must "
                            f"have the same Pytree structure as the example arguments "
                            f"passed when closure_convert was called. Expected {in_tree}, "
                            f"but got {in_tree2}")
        outs = core.eval_jaxpr(jaxpr, merge_lists(perturbed, closure, list(hconsts)),
                               *all_args)
        return tree_unflatten(out_tree, outs)

    return converted_fun, list(hoisted), any(isinstance(c, core.Tracer) for c in consts)
