"""`didax.debug`: callbacks and printing from inside transformed code."""

from didax._src.callback import debug_callback as callback
from didax._src.callback import debug_print as print  # noqa: A004
from didax._src.debugger import breakpoint as breakpoint  # noqa: A004
from didax._src.sharding import inspect_array_sharding as inspect_array_sharding
from didax._src.sharding import visualize_array_sharding as visualize_array_sharding

__all__ = ["callback", "print", "breakpoint"]

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.debug", __name__)
