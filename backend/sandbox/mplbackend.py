"""The kernel's matplotlib backend (`MPLBACKEND=module://sandbox.mplbackend`).

Headless Agg rendering; `plt.show()` and `Figure.show()` hand figures to the run's
`plots.Display` (which sends them to the page as images) and close what was shown, as an
inline notebook backend does. Outside a run (no current Display) showing does nothing.

Imports: matplotlib (imported only because the user's program imported it) and sandbox.plots.
"""

from __future__ import annotations

from typing import Any

from matplotlib.backend_bases import FigureManagerBase
from matplotlib.backends.backend_agg import FigureCanvasAgg

from sandbox.plots import Display

FigureCanvas = FigureCanvasAgg


class FigureManager(FigureManagerBase):
    """`fig.show()` sends this one figure."""

    def show(self) -> None:
        display = Display.current
        if display is not None:
            display.show(self.canvas.figure)


def show(*args: Any, **kwargs: Any) -> None:
    """`plt.show()`: send every open figure, then close them."""
    display = Display.current
    if display is not None:
        display.show_open_figures()
