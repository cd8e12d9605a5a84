# title: Pytrees: gradients of nested parameters
# description: Dicts, lists and tuples of arrays flow through grad and tree_util unchanged.
import jax
import jax.numpy as jnp

params = {
    "dense": {"w": jnp.arange(6.0).reshape(2, 3) / 4, "b": jnp.array([0.1, -0.2, 0.3])},
    "scale": [jnp.array(2.0)],
}


def loss(p, x):
    h = x @ p["dense"]["w"] + p["dense"]["b"]
    return jnp.sum(jnp.tanh(h) ** 2) * p["scale"][0]


grads = jax.grad(loss)(params, jnp.array([1.0, -0.5]))
print(jax.tree_util.tree_structure(grads))
print(jax.tree_util.tree_map(lambda g: g.round(3), grads))
leaves = jax.tree_util.tree_leaves(grads)
print(len(leaves), "leaves")
