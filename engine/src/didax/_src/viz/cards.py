"""Building trace cards: for one transformation call (kind, function, arguments) — the
primal jaxpr as data, forward values, cotangents for reverse-mode kinds, the derived
stages (JVP, the known/unknown halves of partial evaluation, the linear and transposed
programs mapped back to primal equations, the vmapped program, StableHLO, optimized HLO and
XLA's cost analysis) and a replayable timeline.

A card is a pure function of its inputs: everything is re-traced here, separately from the
user's own call. May import core, interpreters, lax, api, pjit, viz.jaxpr_data/values.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from didax._src import core
from didax._src.api_util import argnums_partial, ensure_index_tuple
from didax._src.core import ClosedJaxpr
from didax._src.interpreters import ad
from didax._src.interpreters import partial_eval as pe
from didax._src.tree_util import tree_flatten, tree_unflatten
from didax._src.viz import groups, large, names, rowlinks
from didax._src.viz.flow import REVERSE_KINDS, FlowInputs, record_flow
from didax._src.viz.jaxpr_data import IdMaker, render_jaxpr, source_data
from didax._src.viz.values import has_io, summarize


class CardInputs:
    """What the recorder knows about one call."""

    def __init__(self, kind: str, fun: Callable, args: Sequence[Any], kwargs: dict,
                 t_args: Sequence[Any], t_kwargs: dict, result: Any, call_site,
                 index: int, compile_stages: bool, static_argnums=()):
        self.kind, self.fun, self.args, self.kwargs = kind, fun, tuple(args), dict(kwargs)
        self.t_args, self.t_kwargs, self.result = tuple(t_args), dict(t_kwargs), result
        self.call_site, self.index, self.compile_stages = call_site, index, compile_stages
        self.static_argnums = tuple(static_argnums)


def _fun_name(f) -> str:
    from didax._src.util import fun_name  # noqa: PLC0415

    return fun_name(f)


def build_card(inp: CardInputs) -> dict:
    """The TraceCard dict for inp (errors are recorded on the card, never raised)."""
    ids = IdMaker()
    name = _fun_name(inp.fun)
    card = {
        "card_id": f"card-{inp.index}", "index": inp.index, "kind": inp.kind,
        "title": f"{inp.kind}({name})", "fun_name": name,
        "call_site": source_data(inp.call_site), "stages": [], "values": {},
        "cotangents": {}, "timeline": [], "outputs": [], "error": None,
    }
    card["outputs"] = [summarize(x) for x in tree_flatten(inp.result)[0] if _is_array(x)]
    try:
        primal, flat_args, out_tree = _primal_program(inp)
    except Exception as e:  # noqa: BLE001 - a card records its own failure
        card["jaxpr"] = _empty_jaxpr(ids)
        card["error"] = f"could not trace the function: {type(e).__name__}: {e}"
        return card
    tag_ids = _tag_primal_eqns(primal, ids)
    shown = _shown(inp, primal)
    program = primal if shown is None else large.head(primal, shown)
    hierarchy = groups.Groups()
    card["jaxpr"] = render_jaxpr(program, ids, names=names.names_of(primal),
                                 groups=hierarchy.add(program.jaxpr))
    card["groups"] = hierarchy.data
    if shown is not None:
        large.head_text(card["jaxpr"], shown, len(primal.jaxpr.eqns))
        card["notices"] = [large.notice(shown, len(primal.jaxpr.eqns), primal.jaxpr.eqns)]
    inp.shown = shown
    rowlinks.remember(card["card_id"], primal, ids)
    try:
        _fill_card(card, inp, primal, flat_args, out_tree, ids, tag_ids)
    except Exception as e:  # noqa: BLE001
        card["error"] = f"recording failed: {type(e).__name__}: {e}"
    return card


def _shown(inp: CardInputs, primal: ClosedJaxpr) -> int | None:
    """How many top-level equations a card too large for its budget shows (None: all)."""
    k = large.shown_count(primal.jaxpr, inp.kind in REVERSE_KINDS,
                          getattr(inp, "max_card_bytes", 2 << 20))
    return None if k == len(primal.jaxpr.eqns) else k


def _fill_card(card, inp, primal, flat_args, out_tree, ids, tag_ids) -> None:
    io = has_io(primal.jaxpr)
    tangents = inp.t_kwargs.get("tangents") if inp.kind == "jvp" else None
    fi = FlowInputs(inp.kind, primal, flat_args, ids,
                    None if tangents is None else tree_flatten(tangents)[0],
                    getattr(inp, "loop_iterations", 64), getattr(inp, "max_card_bytes", 2 << 20),
                    inp.shown)
    record_flow(card, fi, io)
    if inp.shown is not None:
        return  # (the stage programs of a program this large would not fit either)
    if card["cotangents"]:
        card["stages"] += _reverse_stages(primal, flat_args, ids, tag_ids)
    elif inp.kind in ("jvp", "linearize", "jacfwd"):
        card["stages"] += _jvp_stages(primal, flat_args, ids, tag_ids, inp.kind == "linearize")
    if inp.kind == "vmap":
        card["stages"] += _vmap_stage(inp, primal, out_tree, ids, tag_ids)
    if inp.kind in ("jit", "show") and inp.compile_stages:
        card["stages"] += _compile_stages(primal, _fun_name(inp.fun), ids)


def _is_array(x) -> bool:
    return hasattr(x, "shape") and hasattr(x, "dtype") or isinstance(x, (int, float, complex))


def _empty_jaxpr(ids) -> dict:
    return {"id": ids.jaxpr(), "text": "", "constvars": [], "invars": [], "outvars": [],
            "eqns": [], "effects": []}


# ----------------------------------------------------------------------------------------
# The primal program
# ----------------------------------------------------------------------------------------


def _primal_program(inp: CardInputs):
    """(ClosedJaxpr of the function on the traced arguments, their values, out tree)."""
    fun, args, kwargs = inp.fun, inp.args, inp.kwargs
    if inp.kind in ("grad", "value_and_grad", "jacfwd", "jacrev", "hessian"):
        argnums = inp.t_kwargs.get("argnums", inp.t_args[0] if inp.t_args else 0)
        dyn = tuple(i % len(args) for i in ensure_index_tuple(argnums))
        has_aux = inp.t_kwargs.get("has_aux", inp.t_args[1] if len(inp.t_args) > 1 else False)
        f, dyn_args = argnums_partial(lambda *a: fun(*a, **kwargs), dyn, args)
        if has_aux:
            g = f
            f = lambda *a: g(*a)[0]  # noqa: E731
        return _trace(f, dyn_args, _naming(inp, dyn))
    if inp.kind == "vmap":
        return _trace_unbatched(inp)
    if inp.kind == "jit":
        static = set(inp.static_argnums)
        dyn = tuple(i for i in range(len(args)) if i not in static)
        f, dyn_args = argnums_partial(lambda *a: fun(*a, **kwargs), dyn, args)
        return _trace(f, dyn_args, _naming(inp, dyn))
    naming = _naming(inp, range(len(args)))
    if inp.t_kwargs.get("has_aux"):
        return _trace(lambda *a: fun(*a, **kwargs)[0], args, naming)
    return _trace(lambda *a: fun(*a, **kwargs), args, naming)


def _naming(inp: CardInputs, dyn, args=None):
    """(flat names of the traced arguments, names of closed-over values by id)."""
    args = inp.args if args is None else args
    arg_names = names.ArgNames(inp.fun, len(args), inp.kwargs)
    dyn = tuple(dyn)
    consts = names.closed_over_names(inp.fun, args, arg_names, dyn)
    return arg_names.flat([args[i] for i in dyn], dyn), consts


def _trace(f, args, naming=(None, None)):
    """(ClosedJaxpr, flat args, out tree); the user's names are kept for the program."""
    return names.trace_named(f, args, *naming)


def _trace_unbatched(inp: CardInputs):
    """The per-example program of a vmap: each mapped argument indexed at 0."""
    in_axes = inp.t_kwargs.get("in_axes", inp.t_args[0] if inp.t_args else 0)
    from didax._src.api import _flat_axes  # noqa: PLC0415

    flat, in_tree = tree_flatten((inp.args, inp.kwargs))
    axes = _flat_axes(in_axes, inp.args, inp.kwargs)
    sliced = [np.take(np.asarray(x), 0, axis=a) if a is not None else x
              for x, a in zip(flat, axes)]
    args, kwargs = tree_unflatten(in_tree, sliced)
    return _trace(lambda *a: inp.fun(*a, **kwargs), tuple(args),
                  _naming(inp, range(len(args)), args))


def _tag_primal_eqns(closed: ClosedJaxpr, ids: IdMaker) -> dict:
    """Every primal equation gets a provenance tag = its card id."""
    tag_ids = {}
    for eqn in closed.jaxpr.eqns:
        eid = ids.eqn(eqn)
        eqn.tag = eid
        tag_ids[eid] = eid
    return tag_ids


# ----------------------------------------------------------------------------------------
# Stages
# ----------------------------------------------------------------------------------------


def _stage(name: str, title: str, jaxpr_data: dict | None, text: str | None = None,
           language: str = "jaxpr", cost: dict | None = None) -> dict:
    return {"name": name, "title": title, "language": language,
            "text": text if text is not None else (jaxpr_data or {}).get("text", ""),
            "jaxpr": jaxpr_data, "cost": cost}


def _jaxpr_stage(name, title, closed, ids, tag_ids, primal=None, n_in=0) -> dict:
    """A stage program; its variables that are primal values (the first n_in inputs,
    re-bound primal equations' outputs) carry the primal's user names."""
    user = {} if primal is None else names.stage_names(
        closed.jaxpr, primal.jaxpr, names.names_of(primal), n_in)
    return _stage(name, title, render_jaxpr(closed, ids, tag_ids, user))


def _eval(closed: ClosedJaxpr):
    return lambda *xs: core.eval_jaxpr(closed.jaxpr, closed.consts, *xs)


def _jvp_stages(primal, flat_args, ids, tag_ids, with_linearize) -> list:
    avals = [core.get_aval(x) for x in flat_args]
    tans = [a.to_tangent_aval() for a in avals]
    n = len(avals)

    def jvp_fn(*xs):
        p, t = ad.jvp_flat(_eval(primal), xs[:n], xs[n:])
        return [*p, *t]

    jvp_jaxpr = pe.trace_to_closed_jaxpr(jvp_fn, [*avals, *tans], "jvp")
    stages = [_jaxpr_stage("jvp", "JVP (primal and tangent together)", jvp_jaxpr, ids,
                           tag_ids, primal, n)]
    if with_linearize:
        stages += _pe_stages(primal, avals, ids, tag_ids)[:2]
    return stages


def _pe_stages(primal, avals, ids, tag_ids) -> list:
    """Partial evaluation of the JVP: known (primal + residuals) and unknown (linear)."""
    box = {}

    def known_fn(*xs):
        p_out, lin, _, _ = ad.linearize_flat(_eval(primal), list(xs))
        box["lin"] = lin
        return [*p_out, *lin.consts]

    known = pe.trace_to_closed_jaxpr(known_fn, avals, "partial_eval")
    lin = box["lin"]
    unknown = ClosedJaxpr(pe.convert_constvars_jaxpr(lin.jaxpr), ())
    return [
        _jaxpr_stage("partial_eval_known", "Partial eval: known part (primal + residuals)",
                     known, ids, tag_ids, primal, len(avals)),
        _jaxpr_stage("partial_eval_unknown", "Partial eval: unknown part (linear in "
                     "tangents)", unknown, ids, tag_ids),
        unknown,
    ]


def _reverse_stages(primal, flat_args, ids, tag_ids) -> list:
    avals = [core.get_aval(x) for x in flat_args]
    stages = _jvp_stages(primal, flat_args, ids, tag_ids, False)
    known_s, unknown_s, unknown = _pe_stages(primal, avals, ids, tag_ids)
    n_res = len(unknown.jaxpr.invars) - len(avals)
    linear = [False] * n_res + [True] * len(avals)
    transposed = ad.transpose_jaxpr(unknown, linear)
    stages += [known_s, unknown_s,
               _jaxpr_stage("linear", "Linearized program (residuals, tangents -> "
                            "tangents)", unknown, ids, tag_ids),
               _jaxpr_stage("transpose", "Transposed program (residuals, cotangents -> "
                            "input cotangents)", transposed, ids, tag_ids)]
    return stages


def _vmap_stage(inp: CardInputs, primal: ClosedJaxpr, out_tree, ids, tag_ids) -> list:
    """The batched program, made by batching the (tagged) per-example program, so each
    batched equation maps back to the primal equation it comes from."""
    from didax._src import api  # noqa: PLC0415
    from didax._src.tree_util import broadcast_prefix  # noqa: PLC0415

    in_axes = inp.t_kwargs.get("in_axes", inp.t_args[0] if inp.t_args else 0)
    out_axes = inp.t_kwargs.get("out_axes", inp.t_args[1] if len(inp.t_args) > 1 else 0)
    flat_args = tree_flatten(inp.args)[0]
    axes = api._flat_axes(in_axes, inp.args, inp.kwargs)[:len(flat_args)]
    flat_out_axes = broadcast_prefix(out_axes, tree_unflatten(out_tree, [0] * out_tree.num_leaves),
                                     is_leaf=lambda x: x is None)
    batched = api.vmap.__wrapped__(lambda *xs: tuple(_eval(primal)(*xs)), in_axes=tuple(axes),
                                   out_axes=tuple(flat_out_axes))
    avals = [core.get_aval(x) for x in flat_args]
    closed = pe.trace_to_closed_jaxpr(lambda *xs: batched(*xs), avals, "vmap")
    return [_jaxpr_stage("vmap", "Batched program (vmap)", closed, ids, tag_ids, primal,
                         len(avals))]


def _compile_stages(primal: ClosedJaxpr, name: str, ids: IdMaker | None = None,
                    card: dict | None = None) -> list:
    """StableHLO, optimized HLO and cost analysis, with row links to the card's equations:
    by id when primal is the card's program (or, for equations DCE re-made, by provenance
    tag); otherwise (an outer jit of a composition, a jit body) by primitive and source
    line in `card`."""
    by_source = rowlinks.source_index(card) if card is not None else {}

    def eqn_id(e):
        eid = ids.known_eqn(e) if ids is not None else None
        if eid is None and isinstance(e.tag, str):
            eid = e.tag
        return eid or rowlinks.by_source(by_source, e)

    user = names.names_of(primal)
    arg_names = [user.get(v) for v in primal.jaxpr.invars]
    return rowlinks.compile_stages(primal, name, eqn_id, arg_names, names.results_of(primal))
