"""`jax.scipy.cluster.vq`: vq (vector quantization against a code book)."""

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402
from didax._src.scipy.interpolate import vq as vq

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.scipy.cluster.vq", __name__)
