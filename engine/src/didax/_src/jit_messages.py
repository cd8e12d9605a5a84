"""The messages of `jit`, as JAX words them: cache-miss explanations
(`jax_explain_cache_misses`), arguments that are not arrays, and the uses of mutable array
references jit rejects (returning a ref, one ref passed twice).

May import core, api_util, source_info, tree_util, state.types.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from didax._src import source_info
from didax._src.api_util import param_names, shaped_abstractify
from didax._src.state import types as state_types


def explain_miss(fun, cache: dict, key: tuple) -> None:
    """Why a call traces anew, logged as JAX's `jax_explain_cache_misses` logs it: a
    function never seen, or how its input types differ from the closest earlier call."""
    where = source_info.current()
    site = f"{where.file}:{where.line} ({where.function})" if where else "<unknown>"
    name = getattr(fun, "__name__", "fun")
    code = getattr(fun, "__code__", None)
    defined = f"{code.co_filename}:{code.co_firstlineno}" if code else "<unknown>"
    lines = [f"TRACING CACHE MISS at {site}:"]
    if not cache:
        lines += ["  never seen function:", f"    {name} id={id(fun)} defined at {defined}"]
    else:
        lines += [f"  for {name} defined at {defined}",
                  "  all previously seen cache keys differ. For the closest previous key:"]
        prev = min(cache, key=lambda k: sum(a != b for a, b in zip(k[4], key[4]))
                   + 100 * (k[:4] != key[:4]))
        if prev[:4] != key[:4]:
            lines.append("  different static arguments or input tree structure")
        else:
            lines.append("  different input types:")
            lines += [f"  * at flat argument {i}, now {a.str_short()} and before "
                      f"{b.str_short()}" for i, (a, b) in enumerate(zip(key[4], prev[4]))
                      if a != b]
    logging.getLogger("jax._src.pjit").warning("\n".join(lines))


def argument_error(fun, args, dyn_kw, static, exc: Exception) -> Exception:
    """JAX's error for an argument that is not an array: names the first bad leaf by its
    path (parameter name, then its key path inside the pytree)."""
    from didax._src.tree_util import keystr, tree_flatten_with_path  # noqa: PLC0415

    named = [(n, a) for i, (n, a) in enumerate(zip(param_names(fun, len(args)), args))
             if i not in static]
    named += list(dyn_kw.items())
    for name, arg in named:
        for path, leaf in tree_flatten_with_path(arg)[0]:
            try:
                shaped_abstractify(leaf)
            except OverflowError:
                return OverflowError(
                    "An overflow was encountered while parsing an argument to a jitted "
                    f"computation, whose argument path is {name}{keystr(path)}. Got "
                    f"{type(leaf)} with value {leaf}")
            except TypeError:
                return TypeError(
                    f"Error interpreting argument to {fun} as an abstract array. The "
                    f"problematic value is of type {type(leaf)} and was passed to the "
                    f"function at path {name}{keystr(path)}.\nThis typically means that a "
                    "jit-wrapped function was called with a non-array argument, and this "
                    "argument was not marked as static using the static_argnums or "
                    "static_argnames parameters of jax.jit.")
    return exc


def _fun_desc(fun) -> str:
    code = getattr(fun, "__code__", None)
    where = f" at {code.co_filename}:{code.co_firstlineno}" if code is not None else ""
    return f"{getattr(fun, '__name__', 'fun')}{where}"


def check_no_ref_outputs(fun, jaxpr, names_of: Callable) -> None:
    """As JAX: a jitted function may not return a ref (ValueError), saying where the ref
    came from (an argument, or the line that allocated it)."""
    for v in jaxpr.outvars:
        if state_types.is_ref_aval(v.aval):
            raise ValueError(
                f"function {_fun_desc(fun)} traced for jit returned a mutable array "
                f"reference of type {v.aval}, but mutable array references cannot be "
                f"returned.{_ref_origin(jaxpr, v, names_of)}")


def _ref_origin(jaxpr, v, names_of: Callable) -> str:
    if v in jaxpr.invars:
        names = names_of()
        i = jaxpr.invars.index(v)
        if i < len(names):
            return f"\n\nThe returned mutable array was passed in as the argument {names[i]}."
        return ""
    for eqn in jaxpr.eqns:
        if v in eqn.outvars and eqn.primitive.name == "new_ref" and eqn.source_info:
            tb = eqn.source_info.traceback
            if not tb:
                return ""
            code, lasti = tb[-1][0], tb[-1][1]
            positions = list(code.co_positions())
            line, _, col, _ = positions[lasti // 2] if lasti // 2 < len(positions) else (
                eqn.source_info.line, None, 0, None)
            return (f"\n\nThe returned mutable array was created on line "
                    f"{code.co_filename}:{line}:{col} ({code.co_qualname}).")
    return ""


def check_distinct_refs(fun, flat, consts, names_of: Callable) -> None:
    """As JAX: one ref may be passed as only one argument, and not both passed and closed
    over (ValueError)."""
    seen: dict[int, int] = {}
    closed = {id(c) for c in consts if type(c) is state_types.Ref}
    for i, x in enumerate(flat):
        if type(x) is state_types.Ref:
            j = seen.setdefault(id(x), i)
            if j != i:
                names = names_of()
                raise ValueError(
                    "only one reference to a mutable array may be passed as an argument "
                    f"to a function, but when tracing {_fun_desc(fun)} for jit the mutable "
                    f"array reference of type {x.aval} appeared at both {names[j]} and "
                    f"{names[i]}.")
            if id(x) in closed:
                raise ValueError(
                    f"when tracing {_fun_desc(fun)} for jit, a mutable array reference of "
                    f"type {x.aval} was both closed over and passed as the argument "
                    f"{names_of()[i]}")


def no_refs(jaxpr, what: str) -> None:
    """A jit equation touching refs reaches a transformation's rule only when a jaxpr is
    evaluated under it by hand (jitted calls discharge their refs first)."""
    if state_types.touches_refs(jaxpr.jaxpr):
        raise NotImplementedError(
            f"{what} of a staged jit equation that touches mutable array references is not "
            "supported in didax; apply the transformation to the jitted function itself")
