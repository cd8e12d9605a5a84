"""`jax.experimental.ode`: odeint (adaptive RK45, adjoint derivatives); re-exports."""

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402
from didax._src.ode import odeint as odeint

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.experimental.ode", __name__)
