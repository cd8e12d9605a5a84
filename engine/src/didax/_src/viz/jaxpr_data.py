"""Jaxprs as structured data for the playground (the `JaxprData` of the protocol): every
variable with a card-unique id and its printed name, every equation with its primitive,
params rendered as JAX prints them, operands, user source location, the character span of
its text, nested sub-jaxprs and (for derived programs) the primal equation it came from.

Names and spans come from one pretty-printing pass, so the data and the text agree.
May import core, pretty_printer, source_info.
"""

from __future__ import annotations

import itertools
from typing import Any

from didax._src import core, source_info
from didax._src.core import ClosedJaxpr, Jaxpr, Literal, PpContext, PpSettings


class IdMaker:
    """Card-wide ids for variables and equations.

    A sub-jaxpr object can be shared by several equations (a jitted function called twice
    has one cached body): its variables and equations get ids per occurrence, keyed by
    `scope`, the id of the innermost enclosing equation ("" at the top level of a program).
    """

    def __init__(self):
        self._vars: dict[int, str] = {}
        self._eqns: dict[int, str] = {}
        self._first: dict[int, str] = {}  # id(eqn) -> the first id it got, in any scope
        self._keep: list[Any] = []
        self._vc = itertools.count()
        self._ec = itertools.count()
        self._jc = itertools.count()

    def var(self, v, scope: str = "") -> str:
        k = (scope, id(v)) if scope else id(v)
        out = self._vars.get(k)
        if out is None:
            out = self._vars[k] = f"v{next(self._vc)}"
            self._keep.append(v)
        return out

    def eqn(self, e, scope: str = "") -> str:
        k = (scope, id(e)) if scope else id(e)
        out = self._eqns.get(k)
        if out is None:
            out = self._eqns[k] = f"e{next(self._ec)}"
            self._first.setdefault(id(e), out)
            self._keep.append(e)
        return out

    def jaxpr(self) -> str:
        return f"j{next(self._jc)}"

    def known_eqn(self, e) -> str | None:
        """The first id e got (in any scope), if it has one; never makes a new one."""
        return self._first.get(id(e))


def aval_data(aval) -> dict:
    dtype = getattr(aval, "dtype", None)
    return {
        "shape": [int(d) for d in getattr(aval, "shape", ())],
        "dtype": "token" if isinstance(aval, core.AbstractToken) else dtype.name,
        "weak_type": bool(getattr(aval, "weak_type", False)),
        "short": aval.str_short(short_dtypes=True),
    }


def source_data(info) -> dict | None:
    if info is None or not info.file:
        return None
    return {"file": info.file, "line": int(info.line), "function": info.function,
            "user": is_user_file(info.file)}


def is_user_file(path: str) -> bool:
    return path == "<user>" or not (path.startswith("<") or "site-packages" in path
                                    or source_info.in_didax(path))


class JaxprRenderer:
    """Renders one top-level jaxpr (and everything nested in it) to protocol data."""

    def __init__(self, ids: IdMaker, tag_ids: dict | None = None, names: dict | None = None,
                 groups: dict | None = None):
        self.ids = ids
        self.tag_ids = tag_ids or {}
        self.scope = ""  # the enclosing equation's id while rendering a sub-jaxpr
        self.holders: tuple = ()  # the equations enclosing it, outermost first
        self.names = names or {}
        self.groups = groups or {}

    def render(self, jaxpr: Jaxpr | ClosedJaxpr) -> dict:
        if isinstance(jaxpr, ClosedJaxpr):
            jaxpr = jaxpr.jaxpr
        spans: list = []
        doc = core.pp_toplevel_jaxpr_with_context(jaxpr, PpSettings(eqn_spans=True))
        context, document = doc
        text = document.format(80, spans)
        span_of = {id(src): (start, end) for start, end, src in spans}
        return self._data(jaxpr, text, context, span_of, 0)

    def _data(self, jaxpr: Jaxpr, text: str, context: PpContext, span_of: dict,
              offset: int) -> dict:
        eqns = [self._eqn(e, text, context, span_of, offset) for e in jaxpr.eqns]
        return {
            "id": self.ids.jaxpr(),
            "text": text,
            "constvars": [self._var(v, context) for v in jaxpr.constvars],
            "invars": [self._var(v, context) for v in jaxpr.invars],
            "outvars": [self._atom(a, context) for a in jaxpr.outvars],
            "eqns": eqns,
            "effects": sorted(str(e) for e in jaxpr.effects),
        }

    def _var(self, v, context: PpContext) -> dict:
        out = {"id": self.ids.var(v, self.scope), "name": context.name(v),
               "aval": aval_data(v.aval)}
        user = self.names.get(v)
        if user is not None:
            out["user_name"] = user
        return out

    def _atom(self, a, context: PpContext) -> dict:
        if type(a) is Literal:
            name = a.pretty()
            value = name.rsplit(":", 1)[0]
            return {"literal": True, "value": value, "aval": aval_data(a.aval)}
        return self._var(a, context)

    def _eqn(self, e, text, context, span_of, offset) -> dict:
        start, end = span_of.get(id(e), (0, 0))
        params, subs = {}, []
        for k, v in core.printed_params(e):
            nested = _nested_jaxprs(v)
            if nested:
                for i, j in enumerate(nested):
                    name = k if len(nested) == 1 else f"{k}[{i}]"
                    subs.append({"param": name,
                                 "jaxpr": self._sub(j, e, text, context, span_of)})
            else:
                params[k] = core._param_str(v)
        out = {
            "id": self.ids.eqn(e, self.scope),
            "primitive": e.primitive.name,
            "params": params,
            "invars": [self._atom(a, context) for a in e.invars],
            "outvars": [self._var(v, context) for v in e.outvars],
            "source": source_data(e.source_info),
            "span": {"start": max(start - offset, 0), "end": max(end - offset, 0)},
            "subjaxprs": subs,
            "primal_eqn": self.tag_ids.get(e.tag) if e.tag is not None else None,
        }
        group = self.groups.get((self.holders, e))
        if group is not None:
            out["group"] = group
        return out

    def _sub(self, jaxpr: Jaxpr, eqn, text, context, span_of) -> dict:
        # Sub-jaxprs are printed inline in the root text; their own `text` is the slice of
        # the root text they occupy, so spans stay consistent with what is shown.
        lo, hi = span_of.get(id(jaxpr), (0, 0))
        outer, holders = self.scope, self.holders
        self.scope, self.holders = self.ids.eqn(eqn, outer), (*holders, eqn)
        try:
            return self._data(jaxpr, text[lo:hi], context, span_of, lo)
        finally:
            self.scope, self.holders = outer, holders


def _nested_jaxprs(v) -> list[Jaxpr]:
    vals = v if isinstance(v, tuple) else (v,)
    out = []
    for x in vals:
        if isinstance(x, Jaxpr):
            out.append(x)
        elif isinstance(x, ClosedJaxpr):
            out.append(x.jaxpr)
    return out


def render_jaxpr(jaxpr, ids: IdMaker, tag_ids: dict | None = None,
                 names: dict | None = None, groups: dict | None = None) -> dict:
    """names: {Var: the user's name} (VarData.user_name); groups: {(holders, eqn): group
    id} (EqnData.group) as viz.groups.Groups.add makes it."""
    return JaxprRenderer(ids, tag_ids, names, groups).render(jaxpr)
