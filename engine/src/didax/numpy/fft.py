"""`jax.numpy.fft`: discrete Fourier transforms (NumPy's API)."""

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402
from didax._src.numpy.fft import fft as fft
from didax._src.numpy.fft import fft2 as fft2
from didax._src.numpy.fft import fftfreq as fftfreq
from didax._src.numpy.fft import fftn as fftn
from didax._src.numpy.fft import fftshift as fftshift
from didax._src.numpy.fft import hfft as hfft
from didax._src.numpy.fft import ifft as ifft
from didax._src.numpy.fft import ifft2 as ifft2
from didax._src.numpy.fft import ifftn as ifftn
from didax._src.numpy.fft import ifftshift as ifftshift
from didax._src.numpy.fft import ihfft as ihfft
from didax._src.numpy.fft import irfft as irfft
from didax._src.numpy.fft import irfft2 as irfft2
from didax._src.numpy.fft import irfftn as irfftn
from didax._src.numpy.fft import rfft as rfft
from didax._src.numpy.fft import rfft2 as rfft2
from didax._src.numpy.fft import rfftfreq as rfftfreq
from didax._src.numpy.fft import rfftn as rfftn

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.numpy.fft", __name__)
