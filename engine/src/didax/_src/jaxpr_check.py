"""Type checking jaxprs: every variable defined before use and bound once, and every
equation's output types equal to what its primitive's abstract evaluation (or a custom
typecheck rule) gives, recursively into sub-jaxprs.

May import core (it is imported at the end of core, whose IR classes it checks).
"""

from __future__ import annotations

import itertools as it
from collections.abc import Callable

from didax._src import core
from didax._src.core import DropVar, Jaxpr, JaxprEqn, Literal, Primitive, Var, get_aval
from didax._src.errors import JaxprTypeError

custom_typechecks: dict[Primitive, Callable] = {}


def check_jaxpr(jaxpr: Jaxpr) -> None:
    """Raises JaxprTypeError unless every variable is defined before use and every
    equation's output types equal its primitive's abstract evaluation."""
    env: set[Var] = set()

    def read(a):
        if type(a) is Literal:
            if get_aval(a.val).strip_weak_type().shape != a.aval.shape:
                raise JaxprTypeError(f"literal {a.pretty()} has a mismatched type")
            return a.aval
        if a not in env:
            raise JaxprTypeError(f"Variable '{a!r}' not defined")
        return a.aval

    def write(v):
        if v in env:
            raise JaxprTypeError(f"Variable '{v!r}' already bound")
        env.add(v)

    for v in it.chain(jaxpr.constvars, jaxpr.invars):
        write(v)
    for i, eqn in enumerate(jaxpr.eqns):
        in_avals = [read(a) for a in eqn.invars]
        try:
            out_avals = _eqn_out_avals(eqn, in_avals)
        except JaxprTypeError:
            raise
        except Exception as e:
            raise JaxprTypeError(f"in equation {i} ({eqn.primitive}): {e}") from e
        if len(out_avals) != len(eqn.outvars):
            raise JaxprTypeError(f"equation {i} ({eqn.primitive}): wrong number of outputs")
        for v, a in zip(eqn.outvars, out_avals):
            if not core.typematch(v.aval, a):
                raise JaxprTypeError(
                    f"equation {i} ({eqn.primitive}): output type {v.aval.str_short()} does "
                    f"not match the primitive's result type {a.str_short()}"
                )
            if not isinstance(v, DropVar):
                write(v)
        for sub in core.jaxprs_in_params(eqn.params):
            check_jaxpr(sub)
    for a in jaxpr.outvars:
        read(a)


def _eqn_out_avals(eqn: JaxprEqn, in_avals):
    rule = custom_typechecks.get(eqn.primitive)
    if rule is not None:
        return rule(*in_avals, **eqn.params)
    out = eqn.primitive.abstract_eval(*in_avals, **eqn.params)
    return list(out) if eqn.primitive.multiple_results else [out]
