# title: Type promotion and weak types
# description: How Python scalars, ints and floats of different widths combine.
import jax.numpy as jnp

i8 = jnp.array(3, dtype=jnp.int8)
f16 = jnp.array(1.5, dtype=jnp.float16)
f32 = jnp.array(1.5, dtype=jnp.float32)

print((i8 + 1).dtype)  # a Python int is weakly typed: int8
print((i8 + 1.0).dtype)  # a weak float: the default float
print((f16 + 2.0).dtype)  # weak float keeps float16
print((f16 + f32).dtype)  # float32
print((i8 + f16).dtype)  # float16
print(jnp.promote_types(jnp.int32, jnp.float16))
