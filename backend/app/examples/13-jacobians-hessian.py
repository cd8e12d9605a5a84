# title: Jacobians, Hessians and make_jaxpr
# description: jacfwd, jacrev and hessian of a vector function, and the jaxpr it traces to.
import jax
import jax.numpy as jnp


def f(x):
    return jnp.array([x[0] * x[1], jnp.sin(x[0]) + x[1] ** 2])


x = jnp.array([1.0, 2.0])
print(jax.jacfwd(f)(x))
print(jax.jacrev(f)(x))
print(jax.hessian(lambda v: jnp.sum(f(v)))(x))
print(jax.make_jaxpr(f)(x))
