"""jnp.linalg decompositions (eigh, eigvalsh, svd, svdvals, qr, pinv, matrix_rank, cond,
lstsq) against JAX: values (vector signs normalized), dtypes, jit, grad and vmap, and the
staged primitives' text."""

import didax
import jax
import numpy as np


def _results(m):
    n = m.numpy
    L = n.linalg
    a = n.array([[4., 1., 0.5], [1., 3., 0.2], [0.5, 0.2, 2.]])
    b = n.array([[1., 2.], [3., 4.], [5., 7.]])

    def fixsign(v):  # eigenvector / singular vector signs are arbitrary
        return v * n.sign(v[..., :1, :])
    w, v = L.eigh(a)
    u, s, vh = L.svd(b, full_matrices=False)
    q, r = L.qr(b)
    return [w, fixsign(v), L.eigvalsh(a), s, L.svd(b, compute_uv=False), L.svdvals(b),
            n.abs(q), n.abs(r), L.pinv(b), L.matrix_rank(b), L.cond(a),
            L.lstsq(b, n.array([1., 2., 3.]))[0],
            m.jit(L.eigvalsh)(a), m.jit(lambda x: L.svd(x, compute_uv=False))(b),
            m.jit(lambda x: n.abs(L.qr(x)[1]))(b),
            m.grad(lambda x: n.sum(L.eigvalsh(x)))(a), m.grad(lambda x: L.eigh(x)[0][-1])(a),
            m.grad(lambda x: n.sum(L.svd(x, compute_uv=False)))(b),
            m.grad(lambda x: n.sum(n.abs(L.qr(x)[1])))(b),
            m.jit(m.grad(lambda x: n.sum(L.svd(x, compute_uv=False) ** 2)))(b),
            m.vmap(L.eigvalsh)(n.stack([a, 2 * a])),
            m.vmap(lambda x: L.svd(x, compute_uv=False))(n.stack([b, b + 1])),
            m.grad(lambda x: n.sum(L.svd(x, full_matrices=False)[0][:, 0] ** 3))(b),
            m.grad(lambda x: n.sum(fixsign(L.eigh(x)[1]) ** 3))(a)]


def test_decompositions_as_jax():
    for i, (x, y) in enumerate(zip(_results(didax), _results(jax))):
        assert np.shape(x) == np.shape(y) and np.asarray(x).dtype == np.asarray(y).dtype, i
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-3, atol=1e-4,
                                   err_msg=str(i))


def test_result_types_and_jaxpr_text():
    for m in (didax, jax):
        a = m.numpy.eye(2)
        assert type(m.numpy.linalg.eigh(a)).__name__ == "EighResult"
        assert type(m.numpy.linalg.svd(a)).__name__ == "SVDResult"
        assert type(m.numpy.linalg.qr(a)).__name__ == "QRResult"
    for f in (lambda n: n.linalg.eigh, lambda n: n.linalg.svd, lambda n: n.linalg.qr,
              lambda n: lambda x: n.linalg.svd(x, compute_uv=False)):
        texts = [str(m.make_jaxpr(f(m.numpy))(m.numpy.eye(2))) for m in (didax, jax)]
        assert texts[0] == texts[1]
