# title: Gradients: grad, jvp, vjp and linearize
# description: Four ways to differentiate one function, forward and reverse mode.
import jax
import jax.numpy as jnp


def f(x):
    return jnp.sin(x) * x**2


x = 1.5
print("f(x)      =", f(x))
print("grad      =", jax.grad(f)(x))

y, tangent = jax.jvp(f, (x,), (1.0,))
print("jvp       =", y, tangent)

y, f_vjp = jax.vjp(f, x)
print("vjp       =", f_vjp(1.0))

y, f_lin = jax.linearize(f, x)
print("linearize =", f_lin(1.0))
