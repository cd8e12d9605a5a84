"""`jax.scipy.integrate`: the trapezoidal rule."""

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402
from didax._src.numpy.numeric import trapezoid as trapezoid

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.scipy.integrate", __name__)
