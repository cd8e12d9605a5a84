"""`jax.ops`: segment reductions."""

from didax._src.ops import segment_max as segment_max
from didax._src.ops import segment_min as segment_min
from didax._src.ops import segment_prod as segment_prod
from didax._src.ops import segment_sum as segment_sum

__all__ = ["segment_max", "segment_min", "segment_prod", "segment_sum"]

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.ops", __name__)
