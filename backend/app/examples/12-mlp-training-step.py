# title: A small MLP training step
# description: value_and_grad of a two-layer network and a jitted SGD update, a few steps.
import jax
import jax.numpy as jnp


def init(sizes):
    params = []
    for i, (m, n) in enumerate(zip(sizes[:-1], sizes[1:])):
        w = jnp.sin(jnp.arange(m * n, dtype=jnp.float32).reshape(m, n) + i) * 0.3
        params.append((w, jnp.zeros(n)))
    return params


def mlp(params, x):
    for w, b in params[:-1]:
        x = jnp.tanh(x @ w + b)
    w, b = params[-1]
    return x @ w + b


def loss(params, x, y):
    return jnp.mean((mlp(params, x) - y) ** 2)


@jax.jit
def step(params, x, y):
    value, grads = jax.value_and_grad(loss)(params, x, y)
    new = jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)
    return new, value


params = init([2, 8, 1])
x = jnp.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
y = jnp.array([[0.0], [1.0], [1.0], [0.0]])
for i in range(5):
    params, value = step(params, x, y)
    print(f"step {i}: loss {float(value):.4f}")
