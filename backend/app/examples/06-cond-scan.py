# title: Control flow: cond and scan
# description: Branch on a traced value with lax.cond and carry state through lax.scan.
import jax
import jax.numpy as jnp
from jax import lax


def relu_or_square(x):
    return lax.cond(x > 0, lambda v: v * v, lambda v: jnp.zeros_like(v), x)


print(relu_or_square(2.0), relu_or_square(-1.0))
print(jax.grad(relu_or_square)(3.0))


def cumulative(xs):
    def step(carry, x):
        carry = carry + x
        return carry, carry

    return lax.scan(step, 0.0, xs)


total, running = cumulative(jnp.arange(5.0))
print(total, running)
print(jax.grad(lambda xs: cumulative(xs)[0])(jnp.arange(5.0)))
