"""The jaxpr pretty printer: reproduces JAX 0.10's text for jaxprs (`{ lambda ; a:f32[3].
let ... in (b,) }`), the one-line short form, typed literals, parameter formatting, nested
and shared (hoisted) sub-jaxprs, and `_` for dropped outputs.

Part of the core layer: core re-exports these names (core.pp_eqn_default, ...) and imports
this module once its IR classes exist; import it through core.
"""

from __future__ import annotations

import itertools as it
import re
import weakref
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from didax._src import pretty_printer as pp
from didax._src.core import (
    Atom,
    ClosedJaxpr,
    DropVar,
    Jaxpr,
    JaxprEqn,
    Literal,
    Primitive,
    Var,
    jaxprs_in_params,
)


class PpSettings(NamedTuple):
    print_shapes: bool = True
    source_info: bool = False
    eqn_spans: bool = False


def _alpha_name(n: int) -> str:
    s = ""
    while not s or n:
        n, i = divmod(n, 26)
        s = chr(97 + i) + s
    return s


class PpContext:
    """Variable names unique across nested jaxprs, plus the shared (hoisted) jaxprs."""

    def __init__(self, var_names: dict | None = None):
        self.shared_jaxprs: dict[Jaxpr, str] = {}
        self.shared_jaxpr_names: set[str] = set()
        fresh = (n for i in it.count() if (n := _alpha_name(i)) not in self.shared_jaxpr_names)
        self.var_names: defaultdict = defaultdict(fresh.__next__, var_names or {})

    def name(self, v: Atom) -> str:
        if type(v) is Literal:
            return v.pretty()
        if type(v) is DropVar:
            return "_"
        return self.var_names[v]

    def suggest_same_var_names(self, for_vars, like_vars) -> None:
        if len(for_vars) != len(like_vars):
            return
        used = set()
        for for_v, like_v in zip(for_vars, like_vars):
            if (type(like_v) is Var and like_v not in used and type(for_v) is Var
                    and for_v not in self.var_names):
                used.add(like_v)
                self.var_names[for_v] = self.name(like_v)


pp_eqn_rules: dict[Primitive, Callable] = {}
# prim -> fn(eqn) -> [(name, value)]: the parameters as JAX prints them (hidden defaults
# dropped, values reformatted). Used by the printer and by the playground's recorder.
pp_params_rules: dict[Primitive, Callable] = {}


def printed_params(eqn: JaxprEqn) -> list[tuple[str, Any]]:
    rule = pp_params_rules.get(eqn.primitive)
    if rule is not None:
        return list(rule(eqn))
    return [(k, eqn.params[k]) for k in sorted(eqn.params)]


def pp_var(v: Atom, context: PpContext) -> pp.Doc:
    return pp.text(context.name(v))


# Printed types a transformation gives some variables in place of their avals' (shard_map:
# `f32[3]{V:i}` for a body value varying over mesh axis i, `f32[6@i]` over Explicit axes).
var_type_text: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _type_text(v) -> str:
    if var_type_text and type(v) is Var:
        text = var_type_text.get(v)
        if text is not None:
            return text
    return v.aval.str_short(short_dtypes=True)


def pp_vars(vs, context: PpContext, *, separator: str = "", print_shapes=False) -> pp.Doc:
    if print_shapes:
        docs = [pp.text(f"{context.name(v)}:{_type_text(v)}") for v in vs]
    else:
        docs = [pp.text(context.name(v)) for v in vs]
    return pp.nest(2, pp.group(pp.join(pp.text(separator) + pp.group(pp.brk()), docs)))


def _param_str(v) -> str:
    s = str(v)
    return re.sub(r" at 0x([0-9a-fA-F]+)", lambda m: " at 0x" + "X" * len(m.group(1)), s)


def pp_kv_pair(k: str, v: Any, context: PpContext, settings: PpSettings) -> pp.Doc:
    if type(v) is tuple and v and all(isinstance(j, (Jaxpr, ClosedJaxpr)) for j in v):
        pp_v = pp_jaxprs(v, context, settings)
    elif isinstance(v, Jaxpr):
        pp_v = pp_jaxpr(v, context, settings)
    elif isinstance(v, ClosedJaxpr):
        pp_v = pp_jaxpr(v.jaxpr, context, settings)
    elif isinstance(v, frozenset):
        pp_v = pp.text(f"frozenset({{{', '.join(repr(e) for e in sorted(v))}}})")
    else:
        pp_v = pp.text(_param_str(v))
    return pp.text(f"{k}=") + pp_v


def pp_kv_pairs(kv_pairs, context: PpContext, settings: PpSettings) -> pp.Doc:
    if not kv_pairs:
        return pp.nil()
    inner = pp.join(pp.brk(), [pp_kv_pair(k, v, context, settings) for k, v in kv_pairs])
    return pp.group(pp.concat([
        pp.nest(2, pp.concat([pp.text("["), pp.brk(""), inner])),
        pp.brk(""), pp.text("]"),
    ]))


def pp_eqn_default(eqn: JaxprEqn, context: PpContext, settings: PpSettings,
                   params: Sequence[tuple[str, Any]] | None = None) -> pp.Doc:
    """`outs = prim[k=v ...] ins`, params sorted by name unless given."""
    if params is None:
        params = printed_params(eqn)
    lhs = pp_vars(eqn.outvars, context, print_shapes=settings.print_shapes)
    rhs = [pp.text(eqn.primitive.name), pp_kv_pairs(params, context, settings),
           pp.text(" ") + pp_vars(eqn.invars, context)]
    if eqn.outvars:
        return pp.concat([lhs, pp.text(" = "), *rhs])
    return pp.concat(rhs)


def pp_eqn(eqn: JaxprEqn, context: PpContext, settings: PpSettings) -> pp.Doc:
    rule = pp_eqn_rules.get(eqn.primitive, pp_eqn_default)
    doc = rule(eqn, context, settings)
    return pp.source_map(doc, eqn) if settings.eqn_spans else doc


def pp_eqns(eqns, context: PpContext, settings: PpSettings) -> pp.Doc:
    return pp.join(pp.brk("; "), [pp_eqn(e, context, settings) for e in eqns])


def pp_jaxpr_skeleton(jaxpr: Jaxpr, eqns_doc: Callable[[], pp.Doc], context: PpContext,
                      settings: PpSettings) -> pp.Doc:
    constvars = pp_vars(jaxpr.constvars, context, print_shapes=settings.print_shapes)
    invars = pp_vars(jaxpr.invars, context, print_shapes=settings.print_shapes)
    eqns = eqns_doc()
    outvars = pp.concat([
        pp.text("("), pp_vars(jaxpr.outvars, context, separator=","),
        pp.text(")" if len(jaxpr.outvars) != 1 else ",)"),
    ])
    return pp.group(pp.nest(2, pp.concat([
        pp.text("{ "), pp.text("lambda "), constvars, pp.text("; "), invars,
        pp.text(". "), pp.text("let"), pp.nest(2, pp.brk() + eqns), pp.brk(),
        pp.text("in "), outvars,
    ])) + pp.text(" }"))


def pp_jaxpr(jaxpr: Jaxpr, context: PpContext, settings: PpSettings) -> pp.Doc:
    name = context.shared_jaxprs.get(jaxpr)
    if name:
        return pp.text(name)
    doc = pp_jaxpr_skeleton(jaxpr, lambda: pp_eqns(jaxpr.eqns, context, settings), context,
                            settings)
    return pp.source_map(doc, jaxpr) if settings.eqn_spans else doc


def pp_jaxprs(jaxprs, context: PpContext, settings: PpSettings) -> pp.Doc:
    jaxprs = [j.jaxpr if isinstance(j, ClosedJaxpr) else j for j in jaxprs]
    return pp.group(pp.concat([
        pp.nest(2, pp.concat([
            pp.text("("), pp.brk(""),
            pp.join(pp.brk(), [pp_jaxpr(j, context, settings) for j in jaxprs]),
        ])),
        pp.brk(""), pp.text(")"),
    ]))


def _dropvars(jaxpr: Jaxpr) -> dict[Var, str]:
    names: dict[Var, str] = {}
    used = {a for a in jaxpr.outvars if type(a) is not Literal}
    for eqn in reversed(jaxpr.eqns):
        for v in eqn.outvars:
            if v not in used:
                names[v] = "_"
        used.update(a for a in eqn.invars if type(a) is not Literal)
    return names


def pp_toplevel_jaxpr(jaxpr_to_print: Jaxpr, settings: PpSettings | None = None) -> pp.Doc:
    """The whole document: jaxprs used more than once (or long ones) are hoisted to
    `let name = { ... } in` headers, as JAX does."""
    return pp_toplevel_jaxpr_with_context(jaxpr_to_print, settings)[1]


def pp_toplevel_jaxpr_with_context(jaxpr_to_print: Jaxpr, settings: PpSettings | None = None
                                   ) -> tuple[PpContext, pp.Doc]:
    """(the naming context, the document) — the context maps every Var to its name."""
    settings = settings or PpSettings()
    context = PpContext(_dropvars(jaxpr_to_print))
    names: defaultdict[Jaxpr, str] = defaultdict(lambda: "jaxpr")
    counts: Counter = Counter()
    queue = deque([jaxpr_to_print])
    while queue:
        jaxpr = queue.popleft()
        counts[jaxpr] += 1
        if jaxpr is not jaxpr_to_print and len(jaxpr.eqns) > 10:
            counts[jaxpr] += 1
        for eqn in jaxpr.eqns:
            name = eqn.params.get("name")
            if name is None:
                queue.extend(jaxprs_in_params(eqn.params))
                continue
            name = str(name).strip("<>")
            for sub in jaxprs_in_params(eqn.params):
                queue.append(sub)
                names.setdefault(sub, name)
    name_counts: Counter = Counter()
    shared = []
    for jaxpr, c in counts.items():
        if c == 1:
            continue
        name = names[jaxpr]
        if (count := name_counts[name]) > 0:
            name_counts[name] += 1
            name += str(count)
        name_counts[name] += 1
        context.shared_jaxpr_names.add(name)
        context.shared_jaxprs[jaxpr] = name
        shared.append((name, jaxpr))
    docs = []
    for name, jaxpr in shared:
        skeleton = pp_jaxpr_skeleton(
            jaxpr, lambda j=jaxpr: pp_eqns(j.eqns, context, settings), context, settings)
        if settings.eqn_spans:
            skeleton = pp.source_map(skeleton, jaxpr)
        docs.append(pp.concat([pp.text(f"let {name} = "), skeleton, pp.text(" in"), pp.brk()]))
    docs.append(pp_jaxpr(jaxpr_to_print, context, settings))
    return context, pp.concat(docs)
