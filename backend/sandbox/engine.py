"""The kernel's view of the engine: import `didax`, warm XLA, and record trace cards.

`Engine.load()` imports didax (from the read-only engine path put first on sys.path), checks
for the recording API `didax.viz.capture(compile=, max_cards=, on_card=)`, and warms XLA with a
tiny jitted call. Missing pieces are reported in `info` and logged to stderr (a capability
check, never a fake): without `didax.viz` programs run without cards; without didax at all the
XLA client is still made from jaxlib so the lock-down sees XLA's threads.

Imports: the standard library; `didax` and `jaxlib` at run time.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import sys
import time
from typing import Any

from sandbox.runner import Channel, sanitize

DEFAULT_CARD_BYTES = 16 << 20
DEFAULT_CARDS_BYTES = 48 << 20
# The recorder's own budget per card (it trims a larger card, with a notice, before it is sent):
# room for a ~2,000-equation grad card whole (a 4-layer transformer block stack), well under
# the transport limit above. The engine's default (2 MiB) cut such a card to ~500 equations.
RECORD_CARD_BYTES = 10 << 20
UPDATE_INTERVAL_S = 0.1  # call counts of repeated calls go out at most this often
WARM_CODE = "import didax.numpy\nf = didax.jit(lambda x: x * 2.0 + 1.0)\nf(didax.numpy.arange(3.0))"


def _log(text: str) -> None:
    sys.__stderr__.write(f"[kernel] {text}\n")
    sys.__stderr__.flush()


class CardSink:
    """`on_card` callback: forwards each card as soon as it completes, in program order.

    Transport budget (the recorder trims cards first; this is the backstop): a card whose JSON
    is over `max_card_bytes`, or that would take the run's cards over `max_cards_bytes`, is
    dropped with a `card_error` that says so instead of being sent.

    Call counts (`update`) are coalesced: a loop calling a jitted function 100,000 times sends
    the latest count of each card at most every UPDATE_INTERVAL_S, before the next card, and
    once more at the end of the run (`flush_updates`), not 100,000 events."""

    def __init__(
        self, channel: Channel, run_id: str, limits: dict[str, Any], streams: tuple
    ) -> None:
        self.channel, self.run_id, self.max_cards = channel, run_id, 0
        self.max_card_bytes = int(limits.get("max_card_bytes", DEFAULT_CARD_BYTES))
        self.cards_left = int(limits.get("max_cards_bytes", DEFAULT_CARDS_BYTES))
        self.streams = streams
        self.count = 0
        self._updates: dict[str, int] = {}
        self._updates_sent = time.monotonic()

    def __call__(self, card: dict[str, Any]) -> None:
        if self.count >= self.max_cards:
            return
        for stream in self.streams:  # output printed before the card arrives before it
            stream.flush()
        self.flush_updates()
        try:
            event = {"type": "trace_card", "run_id": self.run_id, "card": sanitize(card)}
            text = json.dumps(event, allow_nan=False, separators=(",", ":"))
        except (TypeError, ValueError) as exc:
            self._error(f"card {self.count} is not JSON-serialisable: {exc}")
        else:
            if len(text) > min(self.max_card_bytes, self.cards_left):
                self._error(self._too_large(len(text)))
            else:
                self.cards_left -= len(text)
                self.channel.send_text(text)
        self.count += 1

    def update(self, card_id: str, call_count: int) -> None:
        """`on_card_update` callback: a card already sent was called again (same types)."""
        self._updates[str(card_id)] = int(call_count)
        if time.monotonic() - self._updates_sent >= UPDATE_INTERVAL_S:
            self.flush_updates()

    def flush_updates(self) -> None:
        """Send the latest call count of every card called again since the last flush."""
        updates, self._updates = self._updates, {}
        self._updates_sent = time.monotonic()
        for card_id, call_count in updates.items():
            event = {"type": "card_update", "run_id": self.run_id, "card_id": card_id}
            self.channel.send(dict(event, call_count=call_count))

    def _too_large(self, size: int) -> str:
        if size > self.max_card_bytes:
            limit = f"the {self.max_card_bytes >> 20} MiB limit per card"
        else:
            limit = "what is left of the run's card budget"
        return f"card {self.count} was not sent: its {size / 2**20:.1f} MiB exceed {limit}"

    def _error(self, detail: str) -> None:
        self.channel.send({"type": "card_error", "run_id": self.run_id, "detail": detail})


class Engine:
    """What the kernel knows about didax after start-up."""

    def __init__(self) -> None:
        self.didax: Any = None
        self.viz: Any = None
        self.info: dict[str, Any] = {
            "available": False,
            "version": None,
            "viz": False,
            "detail": None,
        }
        self._client: Any = None
        self.warm_ms: float | None = None

    def load(self, engine_path: str | None) -> None:
        if engine_path and engine_path not in sys.path:
            sys.path.insert(0, engine_path)
        try:
            import didax
        except Exception as exc:  # noqa: BLE001 - any import failure means "no engine"
            self.info["detail"] = f"import didax failed: {type(exc).__name__}: {exc}"
            _log(self.info["detail"])
            self._warm_jaxlib()
            return
        self.didax = didax
        self.info.update(available=True, version=str(getattr(didax, "__version__", "")) or None)
        self._load_viz()
        self._warm_didax()

    def _load_viz(self) -> None:
        try:
            from didax import viz
        except Exception as exc:  # noqa: BLE001
            self.info["detail"] = f"didax.viz unavailable ({exc}); programs run without cards"
            _log(self.info["detail"])
            return
        if not callable(getattr(viz, "capture", None)):
            self.info["detail"] = "didax.viz has no capture(); programs run without cards"
            _log(self.info["detail"])
            return
        self.viz = viz
        self.info["viz"] = True

    def _warm_didax(self) -> None:
        started = time.monotonic()
        try:
            exec(WARM_CODE, {"didax": self.didax})
        except Exception as exc:  # noqa: BLE001
            _log(f"didax warm-up failed ({type(exc).__name__}: {exc}); warming jaxlib instead")
            self._warm_jaxlib()
        self.warm_ms = (time.monotonic() - started) * 1000

    def _warm_jaxlib(self) -> None:
        try:
            from jaxlib import xla_client

            self._client = xla_client.make_cpu_client()
        except Exception as exc:  # noqa: BLE001
            _log(f"jaxlib CPU client unavailable: {exc}")

    def configure(self, settings: dict[str, Any]) -> None:
        """Apply per-run settings (x64) through didax's config, when it has one."""
        config = getattr(self.didax, "config", None)
        if config is None or not hasattr(config, "update"):
            return
        try:
            config.update("jax_enable_x64", bool(settings.get("enable_x64", False)))
        except Exception as exc:  # noqa: BLE001
            _log(f"didax.config.update(jax_enable_x64) failed: {exc}")

    def card_sink(
        self, channel: Channel, run_id: str, limits: dict[str, Any], *streams: Any
    ) -> CardSink:
        return CardSink(channel, run_id, limits, streams)

    def capture(self, settings: dict[str, Any], sink: CardSink) -> Any:
        """The recording context for one run (a null context without didax.viz)."""
        sink.max_cards = int(settings.get("max_cards", 32))
        if self.viz is None:
            return contextlib.nullcontext()
        options: dict[str, Any] = {}
        accepted = inspect.signature(self.viz.capture).parameters
        if "on_card_update" in accepted:
            options["on_card_update"] = sink.update
        if "loop_iterations" in accepted:
            options["loop_iterations"] = int(settings.get("loop_iterations", 64))
        if "max_card_bytes" in accepted:
            options["max_card_bytes"] = min(RECORD_CARD_BYTES, sink.max_card_bytes)
        return self.viz.capture(
            compile=bool(settings.get("compile", True)),
            max_cards=sink.max_cards,
            on_card=sink,
            **options,
        )
