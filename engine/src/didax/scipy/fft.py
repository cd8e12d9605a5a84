"""`jax.scipy.fft`: discrete cosine transforms (type 2) and their inverses."""

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402
from didax._src.scipy.fft import dct as dct
from didax._src.scipy.fft import dctn as dctn
from didax._src.scipy.fft import idct as idct
from didax._src.scipy.fft import idctn as idctn

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.scipy.fft", __name__)
