# title: custom_vjp: clip_gradient
# description: Identity on the way forward, clipped cotangents on the way back.
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.custom_vjp, nondiff_argnums=(0, 1))
def clip_gradient(lo, hi, x):
    return x


def clip_gradient_fwd(lo, hi, x):
    return x, None


def clip_gradient_bwd(lo, hi, _, g):
    return (jnp.clip(g, lo, hi),)


clip_gradient.defvjp(clip_gradient_fwd, clip_gradient_bwd)


def f(x):
    return clip_gradient(-0.75, 0.75, jnp.sin(x) * 3.0)


print(jax.grad(f)(0.0))  # cotangent 1.0 clipped to 0.75, times 3
print(jax.grad(lambda x: jnp.sin(x) * 3.0)(0.0))
