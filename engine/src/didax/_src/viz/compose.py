"""Compositions of transformations on one card: `jit(grad(loss))`, `jit(value_and_grad(f))`,
`vmap(grad(f))`, and a jitted function that calls a differentiation inside (the training
step `jit(step) ▸ value_and_grad(loss)`).

A jit or vmap card whose function differentiates something is recorded as the card of that
inner differentiation, at the concrete values that reached it: the card's function is run
once more eagerly (prints, io and debug callbacks muted) under a probe hook that follows
the transformation calls inside it — into jitted functions (run as plain Python), into vmap
(on example 0 of the batch) — and stops at the first differentiation, whose arguments are
then concrete. The card's `kind` is that differentiation, `transforms` the chain outermost
first, and the title nests directly composed transformations (`jit(grad(loss))`) and marks
a call made inside a user function with `▸` (`jit(step) ▸ value_and_grad(loss)`). The outer
jit's StableHLO/HLO stages and the batched program of an outer vmap are added.

`grad(jit(f))` needs no probe: the primal program holds the jit equation (walked inline);
its title and the jit body's compiled stages are added here too.

May import core, api, pjit, tree_util, callback, viz.cards/values.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator

import numpy as np

from didax._src import api, core
from didax._src.tree_util import tree_flatten, tree_unflatten

DIFF_KINDS = {"grad", "value_and_grad", "vjp", "jvp", "linearize", "jacfwd", "jacrev",
              "hessian"}
OUTER_KINDS = {"jit", "vmap"}


class Link:
    """One transformation call of a chain; `direct`: the enclosing link's function is this
    transformed function itself (jit(grad(f))), not a user function calling it."""

    def __init__(self, kind, fun, args, kwargs, t_args, t_kwargs, direct=True, batch=None):
        self.kind, self.fun, self.args, self.kwargs = kind, fun, tuple(args), dict(kwargs)
        self.t_args, self.t_kwargs = tuple(t_args), dict(t_kwargs)
        self.direct, self.batch = direct, batch


class _Found(Exception):
    def __init__(self, chain: list[Link]):
        super().__init__("found")
        self.chain = chain


@contextlib.contextmanager
def muted() -> Iterator[None]:
    """The user's prints and callbacks do not run again while the recorder re-runs code."""
    from didax._src import callback  # noqa: PLC0415

    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink), \
            callback.muted():
        yield


# ----------------------------------------------------------------------------------------
# Finding the inner differentiation
# ----------------------------------------------------------------------------------------


def find_chain(top: Link) -> list[Link] | None:
    """[top, ..., the first differentiation inside top's function] with concrete
    arguments, or None (nothing differentiated, or the eager re-run failed)."""
    chain = [top]

    def hook(kind, fun, wrapped, args, kwargs, t_args, t_kwargs, static=()):
        parent = chain[-1].fun
        direct = getattr(parent, "__wrapped_transform__", None) is wrapped or \
            getattr(wrapped, "__self__", None) is parent
        link = Link(kind, fun, args, kwargs, t_args, t_kwargs, direct)
        if kind in DIFF_KINDS:
            raise _Found([*chain, link])
        if kind not in OUTER_KINDS:
            return wrapped(*args, **kwargs)
        chain.append(link)
        try:
            return _enter(link, wrapped)
        finally:
            chain.pop()

    api.call_hooks.append(hook)
    try:
        with muted():
            _enter(top, None)
    except _Found as found:
        return found.chain
    except Exception:  # noqa: BLE001 - the card falls back to the plain jit/vmap card
        return None
    finally:
        api.call_hooks.remove(hook)
    return None


def _enter(link: Link, wrapped):
    """Runs link's function eagerly: a jitted function as Python, a vmapped one on
    example 0 (then, if nothing was found, the real batched call)."""
    if link.kind == "jit":
        return link.fun(*link.args, **link.kwargs)
    args, link.batch = example_zero(link)
    link.fun(*args, **link.kwargs)
    return wrapped(*link.args, **link.kwargs) if wrapped is not None else None


def example_zero(link: Link) -> tuple[tuple, int | None]:
    """The vmapped arguments at index 0 of their batch axis, and the batch size."""
    from didax._src.api import _flat_axes  # noqa: PLC0415

    in_axes = link.t_kwargs.get("in_axes", link.t_args[0] if link.t_args else 0)
    flat, tree = tree_flatten(link.args)
    axes = _flat_axes(in_axes, link.args, link.kwargs)[:len(flat)]
    size = next((np.shape(x)[a] for x, a in zip(flat, axes) if a is not None), None)
    sliced = [np.take(np.asarray(x), 0, axis=a) if a is not None else x
              for x, a in zip(flat, axes)]
    return tuple(tree_unflatten(tree, sliced)), size


# ----------------------------------------------------------------------------------------
# Titles
# ----------------------------------------------------------------------------------------


def title(chain: list[Link], name_of) -> str:
    """jit(grad(loss)); jit(step) ▸ value_and_grad(loss); vmap(f) ▸ jit(g) ▸ grad(h)."""
    out = f"{chain[-1].kind}({name_of(chain[-1].fun)})"
    for outer, inner in zip(chain[-2::-1], chain[:0:-1]):
        if inner.direct:
            out = f"{outer.kind}({out})"
        else:
            out = f"{outer.kind}({name_of(outer.fun)}) ▸ {out}"
    return out


def is_jitted(fun) -> bool:
    from didax._src import pjit  # noqa: PLC0415

    return isinstance(fun, pjit.JitWrapped)


def jit_body(closed) -> tuple | None:
    """(the body ClosedJaxpr, its name) of a program that is one jit equation."""
    eqns = [e for e in closed.jaxpr.eqns if e.primitive.name == "jit"]
    if len(eqns) != 1:
        return None
    return eqns[0].params["jaxpr"], str(eqns[0].params.get("name", "jit"))


def selection(message: str) -> dict:
    return {"kind": "selection", "message": message, "eqn_id": None}


def flat_avals(tree) -> list:
    return [core.get_aval(x) for x in tree_flatten(tree)[0]]


# ----------------------------------------------------------------------------------------
# The composed card
# ----------------------------------------------------------------------------------------


def composed_card(inp, nested: set[str]) -> dict | None:
    """The card of a composition for the recorder's call inp (None: not a composition)."""
    if inp.kind in OUTER_KINDS and nested & DIFF_KINDS:
        top = Link(inp.kind, inp.fun, inp.args, inp.kwargs, inp.t_args, inp.t_kwargs)
        chain = find_chain(top)
        return _chain_card(inp, chain) if chain else None
    if inp.kind in DIFF_KINDS and is_jitted(inp.fun):
        return _diff_of_jit_card(inp)
    return None


def _chain_card(inp, chain: list[Link]) -> dict:
    from didax._src.util import fun_name  # noqa: PLC0415
    from didax._src.viz.cards import CardInputs, build_card  # noqa: PLC0415

    inner = chain[-1]
    sub = CardInputs(inner.kind, inner.fun, inner.args, inner.kwargs, inner.t_args,
                     inner.t_kwargs, inp.result, inp.call_site, inp.index, inp.compile_stages)
    sub.loop_iterations = getattr(inp, "loop_iterations", 64)
    sub.max_card_bytes = getattr(inp, "max_card_bytes", 2 << 20)
    card = build_card(sub)
    card["title"] = title(chain, fun_name)
    card["transforms"] = [link.kind for link in chain]
    for link in chain:
        if link.kind == "vmap" and link.batch is not None:
            card["notices"] = [*card.get("notices", []), selection(
                f"The card follows example 0 of the batch of {link.batch} (vmap's "
                "mapped axis); the batched program is the vmap stage.")]
    try:
        card["stages"] += _outer_stages(inp, chain[0], card)
    except Exception as e:  # noqa: BLE001 - the inner card stands without them
        card["notices"] = [*card.get("notices", []), {
            "kind": "recording_limited", "eqn_id": None,
            "message": f"the {inp.kind} stages could not be recorded: {type(e).__name__}"}]
    return card


def _outer_stages(inp, top: Link, card: dict) -> list[dict]:
    """The outer jit's compiled stages, or the batched program of an outer vmap."""
    from didax._src.interpreters import partial_eval as pe  # noqa: PLC0415
    from didax._src.util import fun_name  # noqa: PLC0415
    from didax._src.viz import cards  # noqa: PLC0415

    if top.kind == "jit":
        if not inp.compile_stages:
            return []
        primal, _, _ = cards._primal_program(inp)
        return cards._compile_stages(primal, fun_name(inp.fun), card=card)
    batched = api.vmap.__wrapped__(inp.fun, *inp.t_args, **inp.t_kwargs)
    flat, tree = tree_flatten((inp.args, inp.kwargs))

    def flat_fun(*xs):
        a, k = tree_unflatten(tree, list(xs))
        return tree_flatten(batched(*a, **k))[0]

    closed = pe.trace_to_closed_jaxpr(flat_fun, [core.get_aval(x) for x in flat], "vmap")
    data = cards.render_jaxpr(closed, cards.IdMaker())
    return [cards._stage("vmap", f"Batched program (vmap({fun_name(inp.fun)}))", data)]


def _diff_of_jit_card(inp) -> dict:
    """grad(jit(f)): the grad card, titled so, with the jit body's compiled stages."""
    from didax._src.util import fun_name  # noqa: PLC0415
    from didax._src.viz.cards import _compile_stages, build_card  # noqa: PLC0415

    card = build_card(inp)
    card["title"] = f"{inp.kind}(jit({fun_name(inp.fun)}))"
    card["transforms"] = [inp.kind, "jit"]
    if inp.compile_stages and card["error"] is None:
        try:
            entry = inp.fun._trace(inp.args, inp.kwargs)[0]
            card["stages"] += _compile_stages(entry.closed, fun_name(inp.fun), card=card)
        except Exception:  # noqa: BLE001 - the grad card stands without them
            pass
    return card
