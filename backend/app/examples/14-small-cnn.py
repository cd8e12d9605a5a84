# title: A small CNN with stax
# description: Convolution + max pooling from jax.example_libraries.stax, trained with a jitted Adam step.
import jax
import jax.numpy as jnp
from jax.example_libraries import optimizers, stax

# Synthetic 8x8 images (NHWC): class 0 has a vertical bar, class 1 a horizontal one.
labels = jnp.arange(16) % 2
rows = jnp.arange(8)[:, None]
cols = jnp.arange(8)[None, :]
vertical = ((cols >= 3) & (cols < 5)).astype(jnp.float32)
horizontal = ((rows >= 3) & (rows < 5)).astype(jnp.float32)
noise = 0.3 * jnp.sin(jnp.arange(16 * 64, dtype=jnp.float32) * 1.7).reshape(16, 8, 8)
images = (jnp.where(labels[:, None, None] == 0, vertical, horizontal) + noise)[..., None]

init_fun, apply_fun = stax.serial(
    stax.Conv(4, (3, 3), padding="SAME"), stax.Relu,
    stax.MaxPool((2, 2), strides=(2, 2)),
    stax.Flatten, stax.Dense(2), stax.LogSoftmax)
out_shape, params = init_fun(jax.random.key(0), images.shape)
print("output shape:", tuple(int(d) for d in out_shape))


def loss(params, x, y):
    log_probs = apply_fun(params, x)
    accuracy = jnp.mean(jnp.argmax(log_probs, axis=1) == y)
    return -jnp.mean(jnp.take_along_axis(log_probs, y[:, None], axis=1)), accuracy


opt_init, opt_update, get_params = optimizers.adam(0.05)


@jax.jit
def step(i, opt_state, x, y):
    (value, accuracy), grads = jax.value_and_grad(loss, has_aux=True)(
        get_params(opt_state), x, y)
    return opt_update(i, grads, opt_state), value, accuracy


opt_state = opt_init(params)
for i in range(6):
    opt_state, value, accuracy = step(i, opt_state, images, labels)
    print(f"step {i}: loss {float(value):.4f}, accuracy {float(accuracy):.2f}")
