# title: Plot a function and its gradient
# description: jax.grad vectorised with vmap, drawn with matplotlib beside the function.
import jax
import jax.numpy as jnp
import matplotlib.pyplot as plt


def f(x):
    return jnp.sin(2.0 * x) * jnp.exp(-0.2 * x**2)


df = jax.vmap(jax.grad(f))  # the derivative at every point of an array

xs = jnp.linspace(-5.0, 5.0, 201)
plt.figure(figsize=(6, 3.5))
plt.plot(xs, f(xs), label="f(x)")
plt.plot(xs, df(xs), label="f'(x) = grad(f)(x)", linestyle="--")
plt.axhline(0.0, color="gray", linewidth=0.5)
plt.title("f and its gradient")
plt.xlabel("x")
plt.legend()
plt.show()

x0 = 1.0
print(f"f({x0}) = {float(f(x0)):.4f}, f'({x0}) = {float(jax.grad(f)(x0)):.4f}")
