"""jax.image against JAX: resize with every method, up- and downsampling 1-D, 2-D and 3-D
arrays with and without antialiasing, scale_and_translate, dtypes, and derivatives,
batching and compilation through them."""

import didax
import jax
import numpy as np
import pytest

METHODS = ["nearest", "linear", "cubic", "lanczos3", "lanczos5", "cubic-pytorch", "area"]
SHAPES = [((7,), (13,)), ((12,), (5,)), ((6, 8), (11, 3)), ((4, 9, 3), (8, 4, 3))]
RNG = np.random.default_rng(0)
IMAGES = [RNG.normal(size=s).astype(np.float32) for s, _ in SHAPES]


def assert_same(d, j, tol=2e-6):
    for a, b in zip(didax.tree_util.tree_leaves(d), jax.tree_util.tree_leaves(j)):
        assert a.dtype == b.dtype and a.shape == b.shape, (a, b)
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


@pytest.mark.parametrize("method", METHODS)
def test_resize_as_jax(method):
    def run(m):
        return [m.image.resize(x, out, method, antialias=aa)
                for x, (_, out) in zip(IMAGES, SHAPES) for aa in (True, False)]
    assert_same(run(didax), run(jax))


def test_resize_integer_image_and_method_names():
    img = RNG.integers(0, 255, size=(4, 6)).astype(np.uint8)
    for m in ("nearest", "bilinear", didax.image.ResizeMethod.CUBIC):
        jm = m if isinstance(m, str) else jax.image.ResizeMethod[m.name]
        assert_same(didax.image.resize(img, (7, 3), m), jax.image.resize(img, (7, 3), jm), 1e-4)
    assert didax.image.ResizeMethod.from_string("tricubic") is didax.image.ResizeMethod.CUBIC
    with pytest.raises(ValueError, match='Unknown resize method "box"'):
        didax.image.resize(img, (2, 2), "box")
    with pytest.raises(ValueError, match="shape must have length"):
        didax.image.resize(img, (2,), "linear")


def transformed(m):
    n, x = m.numpy, IMAGES[2]
    t = n.array([0.3, -1.0])

    def st(s, method="linear", aa=True):
        return m.image.scale_and_translate(x, (9, 5), (0, 1), s, t, method, aa)

    def loss(im):
        return n.sum(m.image.resize(im, (9, 5), "lanczos3") ** 3)
    s = n.array([1.5, 0.6])
    return (st(s), st(s, "cubic", False), st(s, "cubic-pytorch", False), st(s, "area"),
            m.grad(lambda s: n.sum(st(s) ** 2))(s), m.grad(loss)(x), m.jit(loss)(x),
            m.vmap(lambda im: m.image.resize(im, (3, 4), "cubic"))(n.stack([x, 2 * x])))


def test_scale_and_translate_grad_jit_vmap_as_jax():
    assert_same(transformed(didax), transformed(jax), 2e-5)
    with pytest.raises(ValueError, match="Nearest neighbor"):
        didax.image.scale_and_translate(IMAGES[0], (3,), (0,), [1.0], [0.0], "nearest")


def test_float32_bits_match_jax_eagerly_and_under_grad():
    """2-D resizing contracts in JAX's order, and eager grad runs the resize compiled (as
    JAX's jit does): the printed digits are JAX's."""
    img = np.arange(48.0, dtype=np.float32).reshape(4, 4, 3) ** 1.5

    def outputs(m):
        return [m.image.resize(img, (2, 7, 3), "bilinear"),
                m.grad(lambda im: (m.image.resize(im, (2, 7, 3), "cubic") ** 2).sum())(img)]
    for d, j in zip(outputs(didax), outputs(jax), strict=True):
        assert np.asarray(d).tobytes() == np.asarray(j).tobytes()
