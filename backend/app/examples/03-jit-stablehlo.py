# title: jit, StableHLO and optimized HLO
# description: Stage a function out with jit and read what XLA receives and what it compiles.
import jax
import jax.numpy as jnp


@jax.jit
def gelu(x):
    return 0.5 * x * (1 + jnp.tanh(0.7978845608 * (x + 0.044715 * x**3)))


x = jnp.linspace(-3.0, 3.0, 8)
print(gelu(x))

lowered = gelu.lower(x)
print(lowered.as_text()[:400])
compiled = lowered.compile()
print(compiled.as_text()[:400])
