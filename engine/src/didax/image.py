"""`jax.image`: image resizing and scale-and-translate resampling."""

from didax._src.image import ResizeMethod as ResizeMethod
from didax._src.image import resize as resize
from didax._src.image import scale_and_translate as scale_and_translate
from didax._src.missing import module_getattr as _module_getattr  # noqa: E402

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.image", __name__)
