# title: Type promotion and weak types
# description: How Python scalars, ints and floats of different widths combine.
import jax
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

# Promotion is part of the program: the card shows where it converts (int8 -> float16 for the
# product, float16 -> float32 for the sum) and the value each conversion makes.
print(jax.make_jaxpr(lambda a, b, c: (a + 1) * b + c * 2.0)(i8, f16, f32))
