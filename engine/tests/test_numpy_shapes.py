"""didax.numpy against JAX 0.10.2: shape manipulation, joining/splitting, repetition,
padding, products (dot/matmul/einsum/...), diagonals and triangles — values, dtypes, weak
types, errors, gradients, vmap and the primitives JAX stages.
"""

import numpy as np
import pytest
from numpy_oracle import L, W, check, check_grad, check_prims, check_vmap, rand

A = rand((2, 3, 4))
M = rand((3, 4), seed=1)
I = np.arange(24, dtype=np.int32).reshape(2, 3, 4)

SHAPE_CASES = [
    ("reshape", (A, (4, -1)), {}), ("reshape", (A, (-1,)), {}), ("reshape", (A, 24), {}),
    ("reshape", (A, (3, 8)), {"order": "F"}), ("reshape", (A, (7,)), {}),
    ("reshape", (A, (-1, -1)), {}), ("reshape", (A, (5, -1)), {}),
    ("reshape", (W(A), (4, 6)), {"order": "A"}), ("ravel", (A,), {}), ("ravel", (A,), {"order": "F"}),
    ("transpose", (A,), {}), ("transpose", (A, (1, 0, 2)), {}), ("transpose", (A, (0, 0, 1)), {}),
    ("transpose", (A, (-1, 0, 1)), {}), ("permute_dims", (A, (2, 1, 0)), {}),
    ("matrix_transpose", (A,), {}), ("matrix_transpose", (np.ones(3),), {}),
    ("swapaxes", (A, 0, 2), {}), ("swapaxes", (A, -1, 0), {}), ("moveaxis", (A, 0, -1), {}),
    ("moveaxis", (A, (0, 1), (2, 0)), {}), ("moveaxis", (A, (0, 1), (1,)), {}),
    ("moveaxis", (A, 0, 5), {}), ("rollaxis", (A, 2), {}), ("rollaxis", (A, 0, 2), {}),
    ("squeeze", (np.ones((1, 3, 1)),), {}), ("squeeze", (np.ones((1, 3, 1)), 0), {}),
    ("squeeze", (np.ones((1, 3, 1)), (0, 2)), {}), ("squeeze", (M, 0), {}),
    ("expand_dims", (M, 0), {}), ("expand_dims", (M, (0, 3)), {}),
    ("expand_dims", (M, (-1, 0)), {}), ("expand_dims", (M, (0, 0)), {}),
    ("expand_dims", (M, 4), {}), ("atleast_1d", (2.0,), {}), ("atleast_1d", (1, M), {}),
    ("atleast_2d", (np.ones(3),), {}), ("atleast_3d", (np.ones(3),), {}),
    ("atleast_3d", (M,), {}), ("atleast_3d", (W(2),), {}),
    ("broadcast_to", (np.ones(3), (2, 3)), {}), ("broadcast_to", (M, (2, 3, 4)), {}),
    ("broadcast_to", (M, (3,)), {}), ("broadcast_to", (np.ones((3, 1)), (3, 5)), {}),
    ("broadcast_to", (2.0, (2,)), {}), ("broadcast_to", (M, (4, 3)), {}),
    ("broadcast_arrays", (M, np.ones(4), 2.0), {}), ("broadcast_shapes", ((2, 1), (3,)), {}),
    ("broadcast_shapes", ((2,), (3,)), {}),
]


@pytest.mark.parametrize("name,args,kwargs", SHAPE_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(SHAPE_CASES)])
def test_shape_ops(name, args, kwargs):
    check(name, *args, **kwargs)


JOIN_CASES = [
    ("concatenate", (L([M, M]),), {}), ("concatenate", (L([M, M]),), {"axis": 1}),
    ("concatenate", (L([M, M[:, :2]]),), {"axis": -1}), ("concatenate", (L([M, I[0]]),), {}),
    ("concatenate", (L([M, M]),), {"axis": None}), ("concatenate", (L([M, M]),), {"dtype": int}),
    ("concatenate", (L([]),), {}), ("concatenate", (L([2.0, 3.0]),), {}),
    ("concatenate", (L([M, np.ones(4)]),), {}), ("concatenate", (A,), {"axis": 1}),
    ("concat", (L([M, M]),), {"axis": 0}), ("stack", (L([M, M]),), {}),
    ("stack", (L([M, M]),), {"axis": 2}), ("stack", (L([M, M]),), {"axis": -1}),
    ("stack", (L([1, 2.0]),), {}), ("stack", (L([M, np.ones(3)]),), {}),
    ("stack", (L([M, I[0]]),), {"dtype": np.float16}), ("stack", (A,), {"axis": 1}),
    ("stack", (L([]),), {}), ("vstack", (L([np.ones(3), np.zeros(3)]),), {}),
    ("hstack", (L([np.ones(3), np.zeros(2)]),), {}), ("hstack", (L([M, M]),), {}),
    ("dstack", (L([M, M]),), {}), ("column_stack", (L([np.ones(2), np.ones((2, 2))]),), {}),
    ("row_stack" if False else "vstack", (L([M, M]),), {"dtype": np.int32}),
    ("append", (M, 1.0), {}), ("append", (M, M), {"axis": 0}),
    ("block", (L([L([M, M]), L([M, M])]),), {}), ("block", (L([np.ones(2), 3.0]),), {}),
    ("unstack", (M,), {}), ("unstack", (M,), {"axis": 1}), ("unstack", (2.0,), {}),
    ("split", (M, 2), {}), ("split", (M, 2, 1), {}), ("split", (M, L([1, 3]), 1), {}),
    ("split", (M, 5), {}), ("split", (M, np.array([1, 2])), {}), ("split", (M, L([1, 5]), 1), {}),
    ("array_split", (M, 4, 1), {}), ("array_split", (M, 2), {}), ("hsplit", (M, 2), {}),
    ("vsplit", (M, 3), {}), ("dsplit", (A, 2), {}), ("vsplit", (np.ones(4), 2), {}),
]


@pytest.mark.parametrize("name,args,kwargs", JOIN_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(JOIN_CASES)])
def test_join_split(name, args, kwargs):
    check(name, *args, **kwargs)


REPEAT_CASES = [
    ("tile", (M, 2), {}), ("tile", (M, (2, 1, 2)), {}), ("tile", (3, (2, 2)), {}),
    ("tile", (M, 0), {}), ("tile", (np.ones(3), (2,)), {}),
    ("repeat", (M, 2), {}), ("repeat", (M, 2), {"axis": 1}), ("repeat", (M, 0, 0), {}),
    ("repeat", (M, np.array([1, 0, 2])), {"axis": 0}), ("repeat", (3, 3), {}),
    ("repeat", (M, np.array([1, 2])), {}), ("repeat", (W(2.0), 2), {}),
    ("repeat", (M, np.array([2, 1, 1])), {"axis": 0, "total_repeat_length": 4}),
    ("resize", (M, (5,)), {}), ("resize", (M, (2, 7)), {}), ("resize", (M, (0,)), {}),
    ("flip", (A,), {}), ("flip", (A, 1), {}), ("flip", (A, (0, 2)), {}), ("fliplr", (M,), {}),
    ("flipud", (M,), {}), ("rot90", (M,), {}), ("rot90", (M, 2), {}), ("rot90", (A, 3, (2, 0)), {}),
    ("rot90", (M, 1, (0, 0)), {}), ("rot90", (np.ones(3),), {}),
    ("roll", (M, 1), {}), ("roll", (M, -2, 1), {}), ("roll", (M, (1, 2), (0, 1)), {}),
    ("roll", (M, W(np.array(2, np.int32))), {}), ("roll", (M, 5, 0), {}),
    ("delete", (M, 1, 1), {}), ("delete", (M, np.array([0, 2]), 1), {}), ("delete", (M, 2), {}),
    ("delete", (M, slice(0, 2), 0), {}), ("insert", (M, 1, 9.0, 1), {}),
    ("insert", (np.arange(3), np.array([1, 1]), np.array([7, 8])), {}),
    ("insert", (M, 0, np.array([1.0, 2.0, 3.0, 4.0]), 0), {}),
]


@pytest.mark.parametrize("name,args,kwargs", REPEAT_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(REPEAT_CASES)])
def test_repeat_reorder(name, args, kwargs):
    check(name, *args, **kwargs)


PAD_MODES = [("constant", {}), ("constant", {"constant_values": 9}),
             ("constant", {"constant_values": ((1, 2), (3, 4))}), ("edge", {}), ("wrap", {}),
             ("reflect", {}), ("symmetric", {}), ("reflect", {"reflect_type": "odd"}),
             ("symmetric", {"reflect_type": "odd"}), ("linear_ramp", {"end_values": 5}),
             ("maximum", {}), ("mean", {"stat_length": 2}), ("median", {}),
             ("minimum", {"stat_length": ((1, 2), (3, 1))}), ("empty", {})]


@pytest.mark.parametrize("width", [1, (2, 3), ((1, 4), (5, 0)), 0])
@pytest.mark.parametrize("mode", range(len(PAD_MODES)))
def test_pad(mode, width):
    name, kw = PAD_MODES[mode]
    arr = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    if name == "empty":
        check("pad", arr, width, fn=lambda m: lambda a, w: m.pad(a, w, "empty").shape)
        return
    check("pad", arr, width, name, **kw)
    if name != "linear_ramp":  # integer ramps floor values XLA and NumPy round differently
        check("pad", np.arange(6, dtype=np.int32).reshape(2, 3), width, name, **kw)


def test_pad_misc():
    check("pad", np.arange(3), (2, 1), "reflect")
    check("pad", np.arange(3.0), 5, "symmetric")
    check("pad", np.arange(3.0), -1)
    check("pad", np.zeros((0, 2)), 1, "edge")
    check("pad", W(2.0), 1)
    check("pad", np.arange(3.0), 1, "bogus")
    check_grad(lambda m: lambda a: m.pad(a, (2, 3), "reflect"), np.arange(4.0))
    check_vmap(lambda m: lambda a: m.pad(a, 1, "edge"), M)
    check_prims(lambda m: lambda a: m.pad(a, (1, 2)), np.arange(4.0))


PRODUCT_CASES = [
    ("dot", (M, M.T), {}), ("dot", (M[0], M[0]), {}), ("dot", (A, M.T), {}), ("dot", (M, 2), {}),
    ("dot", (I[0], M.T), {}), ("dot", (M, M.T), {"preferred_element_type": np.float16}),
    ("dot", (np.ones(3), np.ones(4)), {}), ("dot", (W(2), W(3)), {}),
    ("matmul", (M, M.T), {}), ("matmul", (M[0], M.T), {}), ("matmul", (M, M[0]), {}),
    ("matmul", (M[0], M[0]), {}), ("matmul", (A, rand((4, 5))), {}),
    ("matmul", (rand((2, 1, 3, 4)), rand((5, 4, 2))), {}), ("matmul", (np.ones(3), A), {}),
    ("matmul", (rand((1, 3, 4)), rand((1, 4, 2))), {}), ("matmul", (2.0, M), {}),
    ("matmul", (rand((2, 3, 4)), rand((3, 4, 5))), {}), ("matmul", (np.ones(3), np.ones(4)), {}),
    ("matmul", (I[0], M.T), {"preferred_element_type": np.float32}),
    ("vdot", (M, M), {}), ("vdot", (rand((3,), np.complex64), rand((3,), np.complex64)), {}),
    ("vecdot", (M, M), {}), ("vecdot", (A, rand((3, 4)), ), {"axis": -1}),
    ("matvec", (M, np.ones(4)), {}), ("vecmat", (np.ones(3), M), {}),
    ("inner", (M, M), {}), ("inner", (M, 2.0), {}), ("outer", (M[0], M[1]), {}),
    ("outer", (M, np.arange(2)), {}), ("tensordot", (A, M.T, 1), {}),
    ("tensordot", (A, rand((3, 4, 2)), 2), {}), ("tensordot", (A, M, ((1, 2), (0, 1))), {}),
    ("tensordot", (A, M, (1, 0)), {}), ("tensordot", (A, M, 4), {}),
    ("kron", (M[:2, :2], np.arange(4).reshape(2, 2)), {}), ("kron", (np.ones(2), M), {}),
    ("cross", (rand((4, 3)), rand((4, 3), seed=2)), {}), ("cross", (np.ones(2), np.arange(2.0)), {}),
    ("cross", (rand((3, 2)), rand((3, 3))), {"axisa": 0}), ("cross", (np.ones(4), np.ones(3)), {}),
    ("cross", (rand((3, 4)), rand((3, 4))), {"axis": 0}),
]


@pytest.mark.parametrize("name,args,kwargs", PRODUCT_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(PRODUCT_CASES)])
def test_products(name, args, kwargs):
    check(name, *args, **kwargs)


DIAG_CASES = [
    ("trace", (M,), {}), ("trace", (A, 1, 1, 2), {}), ("trace", (I[0],), {"dtype": np.float32}),
    ("diagonal", (M,), {}), ("diagonal", (M, 1), {}), ("diagonal", (M, -2), {}),
    ("diagonal", (M, 5), {}), ("diagonal", (A, 0, 0, 2), {}), ("diagonal", (np.ones(3),), {}),
    ("diag", (np.arange(3.0),), {}), ("diag", (np.arange(3.0), 1), {}), ("diag", (M, -1), {}),
    ("diag", (A,), {}), ("diagflat", (M[:2, :2], 1), {}), ("tril", (M,), {}), ("tril", (A, -1), {}),
    ("triu", (M, 1), {}), ("triu", (A, -2), {}), ("tril", (np.ones(3),), {}),
]


@pytest.mark.parametrize("name,args,kwargs", DIAG_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(DIAG_CASES)])
def test_diagonals(name, args, kwargs):
    check(name, *args, **kwargs)


EINSUM_CASES = [
    ("ij,jk->ik", (M, M.T)), ("ij->ji", (M,)), ("ii->i", (M[:, :3],)), ("ii", (M[:, :3],)),
    ("ij->", (M,)), ("i,i->", (M[0], M[1])), ("bij,bjk->bik", (A, rand((2, 4, 5)))),
    ("ij,ij->ij", (M, M)), ("ij,kj->ik", (M, M)), ("...j,jk", (A, rand((4, 5)))),
    ("ij,jk,kl->il", (rand((2, 30)), rand((30, 40)), rand((40, 2)))), ("i,j->ij", (M[0], M[1])),
    ("ijk->kj", (A,)), ("iij->ji", (rand((3, 3, 2)),)), ("ij,jk->", (M, M.T)),
    ("i...,i...->...", (rand((3, 2, 4)), rand((3, 1, 4)))), ("ab,ab,ab->a", (M, M, M)),
    ("iii->i", (rand((3, 3, 3)),)), ("ij,ik->jk", (rand((3, 1)), M)), ("ii->", (M[:, :3],)),
    ("ij,jk->ik", (I[0], M.T)), ("ij,jk->ik", (I[0], I[0].T)), ("ij,j", (M, np.ones(4))),
    ("i,i", (np.array([True, False]), np.array([True, True]))), ("ij,jk", (M, np.ones(3))),
]


@pytest.mark.parametrize("case", range(len(EINSUM_CASES)))
def test_einsum(case):
    spec, ops = EINSUM_CASES[case]
    check("einsum", spec, *ops)
    if np.asarray(ops[0]).dtype.kind == "f" and spec not in ("ij,jk", "ij,jk->ik"):
        check_prims(lambda m: lambda *xs: m.einsum(spec, *xs), *ops)


def test_einsum_dtypes_and_transforms():
    a8 = (np.ones((2, 3)) * 100).astype(np.int8)
    check("einsum", "ij->", a8)
    check("einsum", "ij,j->i", a8, np.ones(3, np.uint8))
    check("einsum", "ij->", a8, preferred_element_type=np.int32)
    check("einsum", "ij,jk->ik", M, M.T, preferred_element_type=np.float16)
    check("einsum", "i,i", W(np.array([1.0, 2.0])), W(np.array([1.0, 2.0])))
    check_grad(lambda m: lambda a, b: m.einsum("ij,jk->ik", a, b), M, M.T, argnums=(0, 1))
    check_grad(lambda m: lambda a: m.einsum("ii->", a), M[:, :3])
    check_vmap(lambda m: lambda a, b: m.einsum("ij,j->i", a, b), A, M[0], in_axes=(0, None))
    check("einsum_path", "ij,jk,kl->il", rand((2, 3)), rand((3, 4)), rand((4, 2)),
          fn=lambda m: lambda s, *xs: m.einsum_path(s, *xs)[0])


def test_shape_grads_and_vmap():
    for fn in (lambda m: lambda a: m.reshape(a, (4, -1)), lambda m: m.ravel,
               lambda m: lambda a: m.transpose(a),
               lambda m: lambda a: m.moveaxis(a, 0, -1), lambda m: lambda a: m.stack([a, 2 * a]),
               lambda m: lambda a: m.concatenate([a, a], 1), lambda m: lambda a: m.tile(a, 2),
               lambda m: lambda a: m.repeat(a, 2, axis=1), lambda m: lambda a: m.flip(a, 1),
               lambda m: lambda a: m.roll(a, 1, -1), lambda m: lambda a: m.rot90(a),
               lambda m: lambda a: m.split(a, 2, -1)[1], lambda m: lambda a: m.diagonal(a),
               lambda m: lambda a: m.tril(a), lambda m: lambda a: m.trace(a, axis1=-2, axis2=-1),
               lambda m: lambda a: m.matmul(a, m.ones((4, 2))),
               lambda m: lambda a: m.unstack(a)[1],
               lambda m: lambda a: m.kron(a[0], a[1]), lambda m: lambda a: m.outer(a[0], a[1])):
        check_grad(fn, A)
        check_vmap(fn, A)
    check_grad(lambda m: lambda a: m.repeat(a, np.array([1, 0, 2]), axis=1), A)
    check_grad(lambda m: lambda a: m.diag(a), np.arange(3.0))


def test_shape_prims():
    for fn in (lambda m: lambda a: m.stack([a, a]), lambda m: lambda a: m.tile(a, (2, 1)),
               lambda m: lambda a: m.unstack(a), lambda m: lambda a: m.split(a, 2, axis=1),
               lambda m: lambda a: m.reshape(a, (4, 3), order="F"), lambda m: m.flip,
               lambda m: lambda a: m.roll(a, 1, 1), lambda m: m.rot90,
               lambda m: lambda a: m.repeat(a, 2, axis=0), lambda m: m.tril, lambda m: m.trace,
               lambda m: lambda a: a @ a.T, lambda m: lambda a: m.dot(a, a[0]),
               lambda m: lambda a: m.expand_dims(a, 0), lambda m: lambda a: m.squeeze(a[None]),
               lambda m: lambda a: m.concatenate([a, a]), lambda m: m.kron,
               lambda m: lambda a: m.matmul(a[None], a.T[None, None]),
               lambda m: lambda a: m.broadcast_to(a, (2, 3, 4))):
        try:
            check_prims(fn, M)
        except TypeError:
            check_prims(fn, M, M)


def test_einsum_intermediates_follow_jax():
    """Three or more operands: each intermediate takes opt_einsum's label order (JAX
    transposes to it), so the staged contractions and the float32 bits match JAX's."""
    import didax
    import jax

    args = (rand((4, 4, 3)), rand((4, 2), seed=1), rand((4, 2), seed=2))
    spec = "ijk,il,jm->lmk"
    got = didax.make_jaxpr(lambda *xs: didax.numpy.einsum(spec, *xs))(*args)
    want = jax.make_jaxpr(lambda *xs: jax.numpy.einsum(spec, *xs))(*args)
    assert str(got) == str(want)
    assert (np.asarray(didax.numpy.einsum(spec, *args)).tobytes()
            == np.asarray(jax.numpy.einsum(spec, *args)).tobytes())
