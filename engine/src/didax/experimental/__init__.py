"""`didax.experimental`: io_callback and the x64 context managers, as jax.experimental."""

from didax._src import checkify as _checkify  # noqa: F401 - declares check_p on import
from didax._src.callback import io_callback as io_callback
from didax._src.config import disable_x64 as disable_x64
from didax._src.config import enable_x64 as enable_x64

__all__ = ["io_callback", "enable_x64", "disable_x64"]

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.experimental", __name__)
