"""`didax.debug`: callbacks and printing from inside transformed code."""

from didax._src.callback import debug_callback as callback
from didax._src.callback import debug_print as print  # noqa: A004
from didax._src.debugger import breakpoint as breakpoint  # noqa: A004

__all__ = ["callback", "print", "breakpoint"]
