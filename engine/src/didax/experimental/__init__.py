"""`didax.experimental`: io_callback and the x64 context managers, as jax.experimental."""

from didax._src.callback import io_callback as io_callback
from didax._src.config import disable_x64 as disable_x64
from didax._src.config import enable_x64 as enable_x64

__all__ = ["io_callback", "enable_x64", "disable_x64"]
