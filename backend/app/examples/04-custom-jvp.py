# title: custom_jvp: a numerically stable log1pexp
# description: Replace the derivative rule of a function whose automatic derivative gives NaN.
import jax
import jax.numpy as jnp


@jax.custom_jvp
def log1pexp(x):
    return jnp.log(1.0 + jnp.exp(x))


@log1pexp.defjvp
def log1pexp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return log1pexp(x), t * (1.0 - 1.0 / (1.0 + jnp.exp(x)))


print(jax.grad(log1pexp)(100.0))
print(jax.vmap(jax.grad(log1pexp))(jnp.array([-10.0, 0.0, 10.0])))
