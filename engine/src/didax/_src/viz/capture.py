"""`capture()`: records a trace card for every top-level transformation call of the code
run inside it (grad, value_and_grad, vjp, jvp, linearize, vmap, jitted calls, make_jaxpr,
jacfwd, jacrev, hessian) and `show(f, *args)` for an explicit one. The user's own call runs
unchanged; the card is built afterwards by re-tracing (a failure to record is reported on
the card, never raised into the user's program).

May import api, pjit, source_info, viz.cards.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import Any

from didax._src import api, core, source_info
from didax._src.viz.cards import CardInputs, build_card


class Recorder:
    """The active capture: a card counter, a nesting depth, and where cards go."""

    def __init__(self, on_card: Callable[[dict], None], max_cards: int, compile_stages: bool):
        self.on_card = on_card
        self.max_cards = max_cards
        self.compile_stages = compile_stages
        self.count = 0
        self.depth = 0

    def __call__(self, kind, fun, wrapped, args, kwargs, t_args, t_kwargs, static=()):
        """The api.call_hooks entry: run the call; if it is top-level, record a card."""
        top = self.depth == 0 and core.trace_ctx.trace is core.eval_trace
        self.depth += 1
        try:
            result = wrapped(*args, **kwargs)
        except Exception as e:
            # The user's call failed (e.g. the function does not trace): its card says so,
            # and the exception goes on to the user's program exactly as without capture.
            self.depth -= 1
            if top and self.count < self.max_cards:
                self._record(kind, fun, args, kwargs, t_args, t_kwargs, None, static, e)
            raise
        self.depth -= 1
        if top and self.count < self.max_cards:
            self._record(kind, fun, args, kwargs, t_args, t_kwargs, result, static)
        return result

    def _record(self, kind, fun, args, kwargs, t_args, t_kwargs, result, static,
                user_error: Exception | None = None) -> None:
        call_site = _call_site()
        inp = CardInputs(kind, fun, args, kwargs, t_args, t_kwargs, result, call_site,
                         self.count, self.compile_stages, static)
        self.count += 1
        self.depth += 1
        try:
            card = build_card(inp)
        except Exception as e:  # noqa: BLE001 - recording never breaks the user's program
            card = _failed_card(inp, e)
        finally:
            self.depth -= 1
        if user_error is not None:
            # Only what the failed call could have shown: its program and forward values.
            card["error"] = f"{type(user_error).__name__}: {user_error}"
            card["stages"], card["cotangents"], card["outputs"] = [], {}, []
            card["timeline"] = [st for st in card["timeline"] if st["phase"] == "forward"]
        self.on_card(card)


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
            on_card: Callable[[dict], None] | None = None) -> Iterator[list[dict]]:
    """Records trace cards while active; yields the list of cards (also passed to on_card
    as each completes, in program order)."""
    cards: list[dict] = []

    def sink(card: dict) -> None:
        cards.append(card)
        if on_card is not None:
            on_card(card)

    rec = Recorder(sink, max_cards, compile)
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
