"""jax.scipy.ndimage.map_coordinates, jax.scipy.interpolate.RegularGridInterpolator and
jax.scipy.cluster.vq.vq against JAX: every order and boundary mode, integer inputs, fill
values, derivatives and jit (the interpolator is a pytree)."""

import didax
import jax
import numpy as np

RNG = np.random.default_rng(4)
IMG = RNG.normal(size=(5, 6)).astype(np.float32)
IMI = RNG.integers(0, 100, size=(5, 6)).astype(np.int32)
COORDS = [RNG.uniform(-2, 7, size=(3, 4)).astype(np.float32) for _ in range(2)]
GX = np.array([0.0, 1.0, 2.5, 4.0], np.float32)
GY = np.array([-1.0, 0.0, 2.0], np.float32)
VALS = RNG.normal(size=(4, 3, 2)).astype(np.float32)
Q = RNG.uniform(-1.5, 4.5, size=(6, 2)).astype(np.float32)
OBS, BOOK = RNG.normal(size=(7, 3)).astype(np.float32), RNG.normal(size=(4, 3)).astype(np.float32)


def assert_same(d, j):
    for a, b in zip(d, j, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape, (a, b)
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-5)


def map_cases(m):
    nd, n = m.scipy.ndimage, m.numpy
    out = [nd.map_coordinates(x, COORDS, order, mode, 1.5) for x in (IMG, IMI)
           for order in (0, 1) for mode in ("constant", "nearest", "wrap", "mirror", "reflect")]
    return out + [nd.map_coordinates(n.arange(5.0), [n.array([0.5, 2.0, 4.5])], 1),
                  m.grad(lambda im: n.sum(nd.map_coordinates(im, COORDS, 1, "reflect") ** 2))(IMG),
                  m.grad(lambda c: n.sum(nd.map_coordinates(IMG, [c, COORDS[1]], 1)))(COORDS[0]),
                  m.jit(lambda c: nd.map_coordinates(IMG, c, 1))(COORDS)]


def test_map_coordinates_as_jax():
    assert_same(map_cases(didax), map_cases(jax))


def grid_cases(m):
    interp, n = m.scipy.interpolate.RegularGridInterpolator, m.numpy
    f = interp((GX, GY), VALS[..., 0])
    f3 = interp((GX, GY), VALS, method="nearest", fill_value=None)
    return [f(Q), f(Q, method="nearest"), f3(Q), f3(Q, method="linear"),
            interp((GX,), VALS[:, 0, 0], fill_value=-1.0)(n.array([0.5, 3.0, 9.0])),
            f((n.array([0.5, 1.0]), n.array([0.0, 1.5]))),
            m.grad(lambda v: n.sum(interp((GX, GY), v)(Q[:3])))(VALS),
            m.jit(lambda ff, q: ff(q))(f, Q[:2]),
            *m.scipy.cluster.vq.vq(OBS, BOOK), *m.scipy.cluster.vq.vq(OBS[:, 0], BOOK[:, 0])]


def test_regular_grid_interpolator_and_vq_as_jax():
    d, j = grid_cases(didax), grid_cases(jax)
    assert np.isnan(np.asarray(d[0])).any()  # points outside the grid: NaN by default
    for a, b in zip(d, j, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape, (a, b)
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-5)
