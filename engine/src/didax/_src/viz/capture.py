"""`capture()`: records a trace card for every top-level transformation call of the code
run inside it (grad, value_and_grad, vjp, jvp, linearize, vmap, jitted calls, make_jaxpr,
jacfwd, jacrev, hessian) and `show(f, *args)` for an explicit one. The user's own call runs
unchanged; the card is built afterwards by re-tracing, with the user's prints and callbacks
muted (a failure to record is reported on the card, never raised into the user's program).

A repeated call of one function with the same argument types (avals with weak types,
static arguments, the same transformation parameters) makes no new card: the first card's
`call_count` grows and `on_card_update(card_id, call_count)` is called. A jit or vmap call
that differentiates inside becomes the card of that differentiation (viz/compose.py).

May import api, pjit, source_info, tree_util, viz.cards/compose.
"""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from didax._src import api, core, pjit, source_info
from didax._src.tree_util import tree_flatten, tree_unflatten
from didax._src.viz import budget, compose
from didax._src.viz.cards import CardInputs, build_card


class Recorder:
    """The active capture: a card counter, a nesting depth, the cards made so far by call
    signature, and where cards and call-count updates go."""

    def __init__(self, on_card: Callable[[dict], None], max_cards: int, compile_stages: bool,
                 on_update: Callable[[str, int], None] | None = None,
                 loop_iterations: int = 64,
                 max_card_bytes: int = budget.DEFAULT_MAX_CARD_BYTES):
        self.on_card, self.on_update = on_card, on_update
        self.loop_iterations, self.max_card_bytes = loop_iterations, max_card_bytes
        self.max_cards = max_cards
        self.compile_stages = compile_stages
        self.count = 0
        self.depth = 0
        self.made: dict[tuple, dict] = {}  # call signature -> its card
        self.keep: list[Any] = []          # keeps the functions of signatures alive
        self.nested: set[str] = set()      # kinds called inside the current top-level call

    def __call__(self, kind, fun, wrapped, args, kwargs, t_args, t_kwargs, static=()):
        """The api.call_hooks entry: run the call; if it is top-level, record a card."""
        top = self.depth == 0 and core.trace_ctx.trace is core.eval_trace
        if not top:
            self.nested.add(kind)
            return wrapped(*args, **kwargs)
        key = self._signature(kind, fun, args, kwargs, t_args, t_kwargs, static)
        self.nested = set()
        self.depth += 1
        call_args, args = args, _copy_donated(wrapped, args)
        try:
            result = wrapped(*call_args, **kwargs)
        except Exception as e:
            # The user's call failed (e.g. the function does not trace): its card says so,
            # and the exception goes on to the user's program exactly as without capture.
            self.depth -= 1
            if not self._again(key) and self.count < self.max_cards:
                self._record(kind, fun, args, kwargs, t_args, t_kwargs, None, static, e, key)
            raise
        self.depth -= 1
        if not self._again(key) and self.count < self.max_cards:
            self._record(kind, fun, args, kwargs, t_args, t_kwargs, result, static, None, key)
        return result

    def _signature(self, kind, fun, args, kwargs, t_args, t_kwargs, static) -> tuple | None:
        try:
            key = call_signature(kind, fun, args, kwargs, t_args, t_kwargs, static)
            hash(key)
        except Exception:  # noqa: BLE001 - an unhashable call is simply never merged
            return None
        self.keep.append(fun)
        return key

    def _again(self, key) -> bool:
        """A call like one already recorded: bump that card's call count."""
        card = self.made.get(key) if key is not None else None
        if card is None:
            return False
        card["call_count"] = card.get("call_count", 1) + 1
        if self.on_update is not None:
            self.on_update(card["card_id"], card["call_count"])
        return True

    def _record(self, kind, fun, args, kwargs, t_args, t_kwargs, result, static,
                user_error: Exception | None, key) -> None:
        inp = CardInputs(kind, fun, args, kwargs, t_args, t_kwargs, result, _call_site(),
                         self.count, self.compile_stages, static)
        inp.loop_iterations, inp.max_card_bytes = self.loop_iterations, self.max_card_bytes
        self.count += 1
        self.depth += 1
        try:
            with compose.muted():
                card = budget.fit(self._build(inp, user_error), self.max_card_bytes)
        except Exception as e:  # noqa: BLE001 - recording never breaks the user's program
            card = _failed_card(inp, e)
        finally:
            self.depth -= 1
        if user_error is not None:
            # Only what the failed call could have shown: its program and forward values.
            card["error"] = f"{type(user_error).__name__}: {user_error}"
            card["stages"], card["cotangents"], card["outputs"] = [], {}, []
            card["timeline"] = [st for st in card["timeline"] if st["phase"] == "forward"]
        card.setdefault("call_count", 1)
        card.setdefault("transforms", [] if kind == "show" else [kind])
        if key is not None:
            self.made[key] = card
        self.on_card(card)

    def _build(self, inp: CardInputs, user_error) -> dict:
        """The card; a jit/vmap call that differentiates inside (seen during the user's
        call, or while the recorder re-traces it) is the card of that differentiation."""
        seen = set(self.nested)
        if user_error is None:
            card = compose.composed_card(inp, seen)
            if card is not None:
                return card
        self.nested = set()
        card = build_card(inp)
        if user_error is None and not seen & compose.DIFF_KINDS and \
                self.nested & compose.DIFF_KINDS:
            return compose.composed_card(inp, self.nested) or card
        return card


def _copy_donated(wrapped, args) -> tuple:
    """The arguments the card needs after the call: a jitted function's donated Arrays are
    deleted by the call (as JAX's), so the card keeps copies of them."""
    from didax._src.array import Array  # noqa: PLC0415

    if not getattr(getattr(wrapped, "__self__", None), "donate_argnums", ()):
        return args
    leaves, tree = tree_flatten(args)
    copies = [Array(np.array(x), x.aval) if isinstance(x, Array) else x for x in leaves]
    return tree_unflatten(tree, copies)


def call_signature(kind, fun, args, kwargs, t_args, t_kwargs, static) -> tuple:
    """What makes two calls the same card: the transformation, the function, the argument
    types (tree structure and avals incl. weak types), static arguments and the
    transformation's own parameters."""
    leaves, tree = tree_flatten((args, kwargs))
    sig = tuple(_leaf_signature(x) for x in leaves)
    static_vals = tuple(_leaf_signature(args[i], by_value=True) for i in static
                        if -len(args) <= i < len(args))
    t_leaves, t_tree = tree_flatten((t_args, t_kwargs))
    return (kind, _fun_key(fun), str(tree), sig, static_vals, str(t_tree),
            tuple(_leaf_signature(x) for x in t_leaves))


def _leaf_signature(x, by_value: bool = False):
    if not by_value and (hasattr(x, "shape") and hasattr(x, "dtype")
                         or type(x) in (bool, int, float, complex)):
        a = core.get_aval(x)
        return ("aval", tuple(a.shape), str(a.dtype), bool(getattr(a, "weak_type", False)))
    try:
        hash(x)
        return ("value", type(x).__name__, x)
    except TypeError:
        return ("repr", repr(x))


def _fun_key(fun, depth: int = 0):
    """Two functions are the same when they run the same code over the same closure
    contents (by value when hashable, else by identity), so `jit(grad(loss))(x)` written in
    a loop is one function however often `grad(loss)` is rebuilt, while a lambda closing
    over another array is another."""
    if depth > _KEY_DEPTH:
        return ("obj", id(fun))
    if isinstance(fun, functools.partial):
        return ("partial", _fun_key(fun.func, depth + 1), _value_key(fun.args, depth),
                _value_key(fun.keywords, depth))
    if hasattr(fun, "__func__") and hasattr(fun, "__self__"):  # a bound method
        return ("method", _fun_key(fun.__func__, depth + 1), id(fun.__self__))
    if isinstance(fun, pjit.JitWrapped):
        return ("jit", _fun_key(fun.fun, depth + 1), fun.static_argnums,
                fun.static_argnames, fun.donate_argnums)
    code = getattr(fun, "__code__", None)
    if code is None:
        return ("obj", id(fun))
    cells = tuple(_cell_key(c, depth) for c in (getattr(fun, "__closure__", None) or ()))
    return ("code", code, cells, _value_key(getattr(fun, "__defaults__", None), depth))


_KEY_DEPTH = 4
_SCALARS = (int, float, complex, bool, str, bytes, type(None))


def _cell_key(cell, depth: int):
    try:
        return _value_key(cell.cell_contents, depth)
    except ValueError:  # an empty cell
        return ("empty",)


def _value_key(x, depth: int):
    if type(x) in _SCALARS:
        return ("value", type(x).__name__, x)
    if depth < _KEY_DEPTH and type(x) in (tuple, list) and len(x) <= 32:
        return (type(x).__name__, tuple(_value_key(v, depth + 1) for v in x))
    if depth < _KEY_DEPTH and type(x) is dict and len(x) <= 32:
        return ("dict", tuple((repr(k), _value_key(v, depth + 1)) for k, v in x.items()))
    if callable(x) and not isinstance(x, type):
        return _fun_key(x, depth + 1)
    return ("id", id(x))


def _failed_card(inp: CardInputs, e: Exception) -> dict:
    from didax._src.viz.jaxpr_data import source_data  # noqa: PLC0415

    name = getattr(inp.fun, "__name__", type(inp.fun).__name__)
    return {"card_id": f"card-{inp.index}", "index": inp.index, "kind": inp.kind,
            "title": f"{inp.kind}({name})", "fun_name": name,
            "call_site": source_data(inp.call_site),
            "jaxpr": {"id": "j0", "text": "", "constvars": [], "invars": [], "outvars": [],
                      "eqns": [], "effects": []},
            "stages": [], "values": {}, "cotangents": {}, "timeline": [], "outputs": [],
            "error": f"recording failed: {type(e).__name__}: {e}"}


def _call_site():
    f = sys._getframe(1)
    while f is not None:
        fname = f.f_code.co_filename
        if not source_info._is_internal(fname):
            return source_info.SourceInfo(fname, f.f_lineno, f.f_code.co_name)
        f = f.f_back
    return None


_active: list[Recorder] = []


@contextlib.contextmanager
def capture(compile: bool = True, max_cards: int = 32,
            on_card: Callable[[dict], None] | None = None,
            on_card_update: Callable[[str, int], None] | None = None,
            loop_iterations: int = 64,
            max_card_bytes: int = budget.DEFAULT_MAX_CARD_BYTES) -> Iterator[list[dict]]:
    """Records trace cards while active; yields the list of cards (also passed to on_card
    as each completes, in program order). on_card_update(card_id, call_count) is called
    when a call repeats one already recorded (the card in the list is updated too).
    loop_iterations: how many iterations of each loop a card records. max_card_bytes: the
    size budget of a card's JSON (a larger card is cut, with a notice: viz/budget.py)."""
    cards: list[dict] = []

    def sink(card: dict) -> None:
        cards.append(card)
        if on_card is not None:
            on_card(card)

    rec = Recorder(sink, max_cards, compile, on_card_update, loop_iterations, max_card_bytes)
    api.call_hooks.append(rec)
    _active.append(rec)
    try:
        yield cards
    finally:
        api.call_hooks.remove(rec)
        _active.remove(rec)


def show(fun: Callable, *args: Any, **kwargs: Any) -> Any:
    """Adds a card for fun(*args) (its jaxpr, values and compiled stages); returns the
    result."""
    if not _active:
        return fun(*args, **kwargs)
    rec = _active[-1]
    return rec("show", fun, fun, args, kwargs, (), {})
