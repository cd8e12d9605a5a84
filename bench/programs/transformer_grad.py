# title: Transformer gradient (big-graph benchmark)
# description: value_and_grad of a 4-layer pre-norm transformer block stack in plain jax.numpy
#   (per-head causal attention, GELU MLP, layer norms): about 2,000 equations, grouped by layer,
#   attention head, MLP and norm.
"""A 4-layer transformer block stack in plain jax.numpy, differentiated: the playground's
big-graph benchmark (the value_and_grad card's program has about 2,000 equations).

Runs as a playground program (`import jax`; eagerly, so no XLA compile of the whole step)
and is what bench/transformer_card.py records.
"""
import jax
import jax.numpy as jnp

LAYERS, HEADS, D_MODEL, SEQ = 4, 14, 56, 8
D_HEAD = D_MODEL // HEADS


def layer_norm(x, gain, bias):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean((x - mean) ** 2, axis=-1, keepdims=True)
    return (x - mean) / jnp.sqrt(var + 1e-5) * gain + bias


def softmax(scores):
    shifted = scores - jnp.max(scores, axis=-1, keepdims=True)
    e = jnp.exp(shifted)
    return e / jnp.sum(e, axis=-1, keepdims=True)


def head(x, wq, wk, wv, bq):
    q, k, v = x @ wq + bq, x @ wk, x @ wv
    scores = q @ k.T / jnp.sqrt(D_HEAD)
    causal = jnp.arange(SEQ)[:, None] >= jnp.arange(SEQ)[None, :]
    weights = softmax(jnp.where(causal, scores, -1e9))
    return weights @ v


def attention(p, x):
    heads = [head(x, p["wq"][h], p["wk"][h], p["wv"][h], p["bq"][h]) for h in range(HEADS)]
    return jnp.concatenate(heads, axis=-1) @ p["wo"]


def gelu(x):
    return 0.5 * x * (1.0 + jnp.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))


def mlp(p, x):
    hidden = gelu(x @ p["w1"] + p["b1"])
    return hidden @ p["w2"] + p["b2"]


def block(p, x):
    x = x + attention(p["attn"], layer_norm(x, p["ln1_g"], p["ln1_b"]))
    x = x + mlp(p["mlp"], layer_norm(x, p["ln2_g"], p["ln2_b"]))
    return x


def model(params, x):
    for p in params["layers"]:
        x = block(p, x)
    return layer_norm(x, params["out_g"], params["out_b"])


def loss(params, x, y):
    return jnp.mean((model(params, x) - y) ** 2)


def sgd(params, grads, lr=0.01):
    return jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)


def init_params(seed=0):
    def w(i, *shape):
        n = 1
        for d in shape:
            n *= d
        return jnp.sin(jnp.arange(n, dtype=jnp.float32) * 0.37 + i).reshape(shape) * 0.1

    def layer(i):
        return {
            "attn": {"wq": w(i, HEADS, D_MODEL, D_HEAD), "wk": w(i + 1, HEADS, D_MODEL, D_HEAD),
                     "wv": w(i + 2, HEADS, D_MODEL, D_HEAD), "wo": w(i + 3, D_MODEL, D_MODEL),
                     "bq": jnp.zeros((HEADS, D_HEAD))},
            "mlp": {"w1": w(i + 4, D_MODEL, 4 * D_MODEL), "b1": jnp.zeros(4 * D_MODEL),
                    "w2": w(i + 5, 4 * D_MODEL, D_MODEL), "b2": jnp.zeros(D_MODEL)},
            "ln1_g": jnp.ones(D_MODEL), "ln1_b": jnp.zeros(D_MODEL),
            "ln2_g": jnp.ones(D_MODEL), "ln2_b": jnp.zeros(D_MODEL),
        }

    return {"layers": [layer(10 * i) for i in range(LAYERS)],
            "out_g": jnp.ones(D_MODEL), "out_b": jnp.zeros(D_MODEL)}


params = init_params()
x = jnp.cos(jnp.arange(SEQ * D_MODEL, dtype=jnp.float32)).reshape(SEQ, D_MODEL)
y = jnp.sin(x)
value, grads = jax.value_and_grad(loss)(params, x, y)
params = sgd(params, grads)
print(f"loss {float(value):.5f}")
