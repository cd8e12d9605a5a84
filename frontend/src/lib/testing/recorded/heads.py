import jax
import jax.numpy as jnp


def head(x, w, b):
    return jnp.tanh(x @ w + b)


def attention(p, x):
    return jnp.concatenate([head(x, p["w"][h], p["b"][h]) for h in range(4)], axis=-1)


def loss(p, x):
    return jnp.sum(attention(p, x) ** 2)


p = {"w": jnp.ones((4, 3, 2)), "b": jnp.zeros((4, 2))}
print(jax.grad(loss)(p, jnp.ones((5, 3))))
