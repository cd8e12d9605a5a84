# title: A small CNN with stax
# description: A convolution + max-pooling network from jax.example_libraries.stax, trained with a jitted Adam step.
import jax
import jax.numpy as jnp
from jax.example_libraries import optimizers, stax

# Synthetic 8x8 images (NHWC): class 0 has a vertical bar, class 1 a horizontal one.
key = jax.random.key(0)
noise = 0.3 * jax.random.normal(key, (16, 8, 8, 1))
labels = jnp.arange(16) % 2
bars = jnp.zeros((16, 8, 8, 1))
bars = jnp.where(labels[:, None, None, None] == 0,
                 bars.at[:, :, 3:5, :].set(1.0), bars.at[:, 3:5, :, :].set(1.0))
images = bars + noise

init_fun, apply_fun = stax.serial(
    stax.Conv(4, (3, 3), padding="SAME"), stax.Relu,
    stax.MaxPool((2, 2), strides=(2, 2)),
    stax.Flatten, stax.Dense(2), stax.LogSoftmax)
out_shape, params = init_fun(jax.random.key(1), images.shape)
print("output shape:", tuple(int(d) for d in out_shape))


def loss(params, x, y):
    log_probs = apply_fun(params, x)
    return -jnp.mean(jnp.take_along_axis(log_probs, y[:, None], axis=1))


opt_init, opt_update, get_params = optimizers.adam(0.05)


@jax.jit
def step(i, opt_state, x, y):
    value, grads = jax.value_and_grad(loss)(get_params(opt_state), x, y)
    return opt_update(i, grads, opt_state), value


opt_state = opt_init(params)
for i in range(6):
    opt_state, value = step(i, opt_state, images, labels)
    print(f"step {i}: loss {float(value):.4f}")

predictions = jnp.argmax(jax.jit(apply_fun)(get_params(opt_state), images), axis=1)
print("accuracy:", float(jnp.mean(predictions == labels)))
