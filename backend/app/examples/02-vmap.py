# title: Batching with vmap
# description: Write the function for one example, run it on a batch; in_axes picks the batch axis.
import jax
import jax.numpy as jnp


def predict(w, x):
    return jnp.tanh(jnp.dot(w, x))


w = jnp.ones((3, 4)) * 0.1
xs = jnp.arange(20.0).reshape(5, 4)

batched = jax.vmap(predict, in_axes=(None, 0))
print(batched(w, xs).shape)

per_example_grads = jax.vmap(jax.grad(lambda w, x: predict(w, x).sum()), in_axes=(None, 0))
print(per_example_grads(w, xs).shape)
