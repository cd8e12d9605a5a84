# title: Pytrees: gradients of nested parameters
# description: Dicts, lists and tuples of arrays flow through grad and tree_util unchanged.
import jax
import jax.numpy as jnp

params = {
    "dense": {"w": jnp.ones((2, 3)) * 0.5, "b": jnp.zeros(3)},
    "scale": [jnp.array(2.0)],
}


def loss(p, x):
    h = x @ p["dense"]["w"] + p["dense"]["b"]
    return jnp.sum(h**2) * p["scale"][0]


grads = jax.grad(loss)(params, jnp.array([1.0, -1.0]))
print(jax.tree_util.tree_structure(grads))
print(jax.tree_util.tree_map(lambda g: g.shape, grads))
leaves = jax.tree_util.tree_leaves(grads)
print(len(leaves), "leaves")
