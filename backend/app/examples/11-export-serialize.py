# title: export and serialize
# description: Export a jitted function to StableHLO, serialize it to bytes and call it back.
import jax
import jax.numpy as jnp
from jax import export


def f(x):
    return jnp.cos(x) * 2.0


exported = export.export(jax.jit(f))(jax.ShapeDtypeStruct((3,), jnp.float32))
print(exported.in_avals, exported.out_avals)
blob = exported.serialize()
print(len(blob), "bytes")

restored = export.deserialize(blob)
print(restored.call(jnp.arange(3.0)))
# A deserialized function composes with transformations like any other.
print(jax.jit(restored.call)(jnp.arange(3.0)))
print(exported.mlir_module()[:300])
