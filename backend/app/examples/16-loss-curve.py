# title: A loss curve from jitted training steps
# description: Fit a line with a jitted value_and_grad step and plot the loss per step.
import jax
import jax.numpy as jnp
import matplotlib.pyplot as plt

xs = jnp.linspace(-1.0, 1.0, 32)
ys = 3.0 * xs - 0.5 + 0.1 * jnp.sin(9.0 * xs)  # a line plus a wiggle


def loss(params, x, y):
    w, b = params
    return jnp.mean((w * x + b - y) ** 2)


@jax.jit
def step(params, x, y):
    value, grads = jax.value_and_grad(loss)(params, x, y)
    params = tuple(p - 0.3 * g for p, g in zip(params, grads))
    return params, value


params = (jnp.array(0.0), jnp.array(0.0))
losses = []
for _ in range(30):
    params, value = step(params, xs, ys)
    losses.append(float(value))

w, b = params
print(f"w = {float(w):.3f}, b = {float(b):.3f}, final loss = {losses[-1]:.5f}")

plt.figure(figsize=(6, 3.5))
plt.plot(losses, marker="o", markersize=3)
plt.yscale("log")
plt.title("training loss")
plt.xlabel("step")
plt.ylabel("mean squared error")
plt.grid(True, alpha=0.3)
