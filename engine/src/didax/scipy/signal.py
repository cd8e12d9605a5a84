"""`jax.scipy.signal`: convolution, correlation and detrending."""

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402
from didax._src.scipy.signal import convolve as convolve
from didax._src.scipy.signal import convolve2d as convolve2d
from didax._src.scipy.signal import correlate as correlate
from didax._src.scipy.signal import correlate2d as correlate2d
from didax._src.scipy.signal import csd as csd
from didax._src.scipy.signal import detrend as detrend
from didax._src.scipy.signal import fftconvolve as fftconvolve
from didax._src.scipy.signal import istft as istft
from didax._src.scipy.signal import stft as stft
from didax._src.scipy.signal import welch as welch

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.scipy.signal", __name__)
