"""Matplotlib figures as `display` events: `plt.show()` and figures left open at the end of a run.

The kernel selects its own backend (`MPLBACKEND=module://sandbox.mplbackend`, a headless Agg
canvas whose `show()` lands here) and a writable config dir on the sandbox's tmpfs
(`MPLCONFIGDIR`), seeded with the font cache built at set-up time (scripts/setup_python.sh
writes it under the kernel venv's `share/didax-mplconfig`), so no kernel rebuilds the font list
on a read-only filesystem with no home. Nothing here imports matplotlib until the user's
program has: a run that does not plot pays nothing.

A figure becomes SVG when that is small (crisp at any zoom), PNG otherwise, re-rendered at a
lower resolution if needed to fit `MAX_IMAGE_CHARS`; a run shows at most `MAX_FIGURES`. Text
printed before a figure is flushed before it, so the page shows them in program order.

Imports: the standard library; matplotlib only once the user's program imported it.
"""

from __future__ import annotations

import base64
import io
import os
import shutil
import sys
from typing import Any

MAX_FIGURES = 16
MAX_IMAGE_CHARS = 1 << 20  # the `data` of one display event (base64 PNG or SVG text)
SVG_MAX_CHARS = 160 * 1024  # larger SVGs (dense scatter plots) go out as PNG
PNG_DPI = (110, 80, 50)
BACKEND = "module://sandbox.mplbackend"
SEED_DIR = os.path.join(sys.prefix, "share", "didax-mplconfig")


def prepare(home: str | None = None) -> str:
    """Point matplotlib at the kernel's backend and a writable, pre-seeded config dir (under
    the kernel's home: the sandbox's tmpfs, or the private work dir of an rlimits kernel)."""
    base = home or os.environ.get("HOME") or os.getcwd()
    config = os.path.join(base, ".mplconfig")
    os.makedirs(config, exist_ok=True)
    if os.path.isdir(SEED_DIR):
        for name in os.listdir(SEED_DIR):
            if name.endswith(".json") and not os.path.exists(os.path.join(config, name)):
                shutil.copyfile(os.path.join(SEED_DIR, name), os.path.join(config, name))
    os.environ["MPLCONFIGDIR"] = config
    os.environ["MPLBACKEND"] = BACKEND
    return config


class Display:
    """Sends the current run's figures as `display` events, bounded in count and size."""

    current: Display | None = None

    def __init__(self, channel: Any, run_id: str, streams: tuple[Any, ...]) -> None:
        self.channel, self.run_id, self.streams = channel, run_id, streams
        self.sent = 0
        self.refused = 0

    def __enter__(self) -> Display:
        Display.current = self
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.show_open_figures()
        finally:
            Display.current = None

    def show_open_figures(self) -> None:
        """Emit every figure pyplot still holds, in figure-number order, and close them."""
        plt = sys.modules.get("matplotlib.pyplot")
        if plt is None:
            return
        for num in plt.get_fignums():
            self.show(plt.figure(num))
        plt.close("all")

    def show(self, fig: Any) -> None:
        """Render one figure and send it (or a notice saying why it was not shown)."""
        for stream in self.streams:  # text printed before the figure arrives before it
            stream.flush()
        if self.sent >= MAX_FIGURES:
            self.refused += 1
            if self.refused == 1:
                self._notice(f"more figures were not shown: a run shows at most {MAX_FIGURES}")
            return
        try:
            image = render(fig)
        except Exception as exc:  # noqa: BLE001 - a broken figure must not end the run
            self._notice(f"a figure could not be drawn: {type(exc).__name__}: {exc}")
            return
        if image is None:
            self._notice("a figure was too large to show, even at low resolution")
            return
        self.sent += 1
        self.channel.send({"type": "display", "run_id": self.run_id, **image})

    def _notice(self, text: str) -> None:
        stderr = self.streams[-1] if self.streams else sys.stderr
        stderr.write(f"[plot] {text}\n")
        stderr.flush()


def _alt(fig: Any, number: int | None) -> str:
    """A short text alternative: the figure's titles and axis labels."""
    parts: list[str] = []
    if fig.get_suptitle():
        parts.append(fig.get_suptitle())
    for ax in fig.get_axes()[:6]:
        bits = [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
        text = " / ".join(b for b in bits if b)
        if text:
            parts.append(text)
    label = f"Figure {number}" if number else "Figure"
    return (label + (": " + "; ".join(parts) if parts else ""))[:300]


def render(fig: Any) -> dict[str, Any] | None:
    """{mime, data, width, height, alt} for one figure, or None if it cannot fit."""
    width_in, height_in = fig.get_size_inches()
    meta = {
        "width": max(1, round(width_in * 96)),
        "height": max(1, round(height_in * 96)),
        "alt": _alt(fig, getattr(fig, "number", None)),
    }
    svg = io.BytesIO()
    fig.savefig(svg, format="svg")
    text = svg.getvalue().decode("utf-8")
    if len(text) <= SVG_MAX_CHARS:
        return {"mime": "image/svg+xml", "data": text, **meta}
    for dpi in PNG_DPI:
        png = io.BytesIO()
        fig.savefig(png, format="png", dpi=dpi)
        data = base64.b64encode(png.getvalue()).decode("ascii")
        if len(data) <= MAX_IMAGE_CHARS:
            return {"mime": "image/png", "data": data, **meta}
    return None
