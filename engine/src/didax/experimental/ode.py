"""`jax.experimental.ode`: odeint (adaptive RK45, adjoint derivatives); re-exports."""

from didax._src.ode import odeint as odeint
