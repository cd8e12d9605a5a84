# title: while_loop: Newton's method
# description: Iterate until convergence with lax.while_loop under jit.
import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def newton_sqrt(a):
    def cond(state):
        x, i = state
        return (jnp.abs(x * x - a) > 1e-5) & (i < 50)

    def body(state):
        x, i = state
        return 0.5 * (x + a / x), i + 1

    x, steps = lax.while_loop(cond, body, (a, 0))
    return x, steps


print(newton_sqrt(2.0))
print(newton_sqrt(81.0))
