"""jax.scipy.spatial.transform Rotation and Slerp against JAX: constructors, conversions
(matrix, rotation vector, MRP, every kind of Euler sequence incl. gimbal lock), composition,
apply, mean, indexing, interpolation, printing, and grad / jit / vmap through them."""

import didax
import didax.scipy.spatial.transform
import jax
import jax.scipy.spatial.transform
import numpy as np

RNG = np.random.default_rng(7)
Q = RNG.normal(size=(5, 4)).astype(np.float32)
V = RNG.normal(size=(5, 3)).astype(np.float32)
E = RNG.uniform(-3, 3, size=(5, 3)).astype(np.float32)


def cases(m):
    R, S, n = m.scipy.spatial.transform.Rotation, m.scipy.spatial.transform.Slerp, m.numpy
    r, r1 = R.from_quat(Q), R.from_quat(Q[0])
    out = [r.as_matrix(), R.from_matrix(r.as_matrix()).as_quat(canonical=True), r.as_rotvec(),
           r.as_rotvec(degrees=True), R.from_rotvec(V).quat, R.from_rotvec(V * 1e-4).quat,
           R.from_rotvec(V[0], degrees=True).quat, R.from_mrp(r.as_mrp()).quat,
           r.as_quat(scalar_first=True), r.inv().quat, r.magnitude(), (r1 * r).quat,
           r.apply(V), r.apply(V, inverse=True), r1.apply(V), R.identity().quat, r.mean().quat,
           r.mean(n.arange(1.0, 6.0)).quat, R.concatenate([r, r[:2]]).quat, r[1:3].quat,
           R.from_euler("xy", n.array([0.3, 0.2])).quat,
           R.from_euler("xyz", n.array([0.0, np.pi / 2, 0.3])).as_euler("xyz"),
           R.from_euler("xyx", n.array([0.2, 0.0, 0.3])).as_euler("xyx")]
    for seq in ("xyz", "ZYX", "xyx", "XZX", "yxz"):
        out += [R.from_euler(seq, E).quat, R.from_euler(seq, E[0], degrees=True).quat,
                r.as_euler(seq), r.as_euler(seq, degrees=True)]
    s = S.init(n.array([0.0, 1.0, 3.0, 4.0]), r[:4])
    return out + [s(n.array([0.0, 0.5, 2.0, 3.9])).quat, s(2.5).quat,
                  m.grad(lambda q: n.sum(R.from_quat(q).apply(V)))(Q),
                  m.jit(lambda q: R.from_quat(q).as_euler("xyz"))(Q),
                  m.vmap(lambda q: R.from_quat(q).as_matrix())(Q)]


def test_rotation_and_slerp_as_jax():
    for a, b in zip(cases(didax), cases(jax), strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape, (a, b)
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-4, atol=1e-4)
    got = repr(didax.scipy.spatial.transform.Rotation.from_quat(Q[0]))
    assert got == repr(jax.scipy.spatial.transform.Rotation.from_quat(Q[0]))
