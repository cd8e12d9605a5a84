"""didax.numpy against JAX 0.10.2: selection and rounding (where/select/piecewise/clip/
round/nan_to_num), comparisons of whole arrays, sorting and searching, order statistics,
set operations, numerical helpers and polynomials, index tricks, vectorize/ufunc objects,
and the public namespace itself.
"""

import didax.numpy as dnp
import jax.numpy as jnp
import numpy as np
import pytest
from numpy_oracle import L, W, check, check_grad, check_prims, check_vmap, rand

M = rand((3, 4), seed=1)
V = rand((6,), seed=2)
NAN = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan], [4.0, 0.5, -1.0]], np.float32)
B = rand((3, 4), np.bool_, seed=3)

MISC_CASES = [
    ("where", (B, M, 0.0), {}), ("where", (B, 1, 2.0), {}), ("where", (np.array([1, 0, 2]),), {}),
    ("where", (True, 1, None), {}), ("where", (B, M, rand((4,), np.int8)), {}),
    ("select", (L([B, ~B]), L([M, -M])), {}), ("select", (L([]), L([])), {}),
    ("select", (L([B]), L([1])), {"default": 2.5}), ("select", (L([M > 0]), L([M, M])), {}),
    ("clip", (M, -1.0, 1.0), {}), ("clip", (np.arange(5), 1, 3.5), {}), ("clip", (M,), {}),
    ("clip", (np.arange(5),), {"max": 2}), ("clip", (rand((3,), np.complex64), 0, 1), {}),
    ("clip", (rand((3,), np.int8), 0, 10), {}),
    ("round", (np.array([1.25, 2.5, -0.5, 3.5]),), {}), ("round", (M, 2), {}),
    ("round", (np.array([15, 25]), -1), {}), ("round", (2.5,), {}), ("around", (M, 1), {}),
    ("round", (rand((3,), np.complex64), 1), {}), ("round", (rand((3,), np.float16), 2), {}),
    ("nan_to_num", (np.array([1.0, np.nan, np.inf, -np.inf]),), {}),
    ("nan_to_num", (np.array([1.0, np.nan, np.inf]),), {"nan": 1, "posinf": 2}),
    ("nan_to_num", (np.array([1 + np.nan * 1j], np.complex64),), {}),
    ("nan_to_num", (np.array([1, 2]),), {}),
    ("isclose", (np.array([1.0, np.nan, np.inf]), np.array([1.00001, np.nan, np.inf])), {}),
    ("isclose", (M, M + 1e-6), {"equal_nan": True}), ("isclose", (1, 1), {}),
    ("allclose", (M, M), {}), ("array_equal", (M, M), {}), ("array_equal", (M, M[:2]), {}),
    ("array_equal", (NAN, NAN), {"equal_nan": True}), ("array_equiv", (np.ones(2), 1.0), {}),
    ("array_equiv", (np.ones(2), np.ones(3)), {}), ("astype", (M, np.int32), {}),
    ("astype", (W(2.0), np.float32), {}), ("astype", (rand((2,), np.complex64), np.float32), {}),
    ("isscalar", (W(2),), {}), ("isscalar", (M,), {}), ("iscomplexobj", (1j,), {}),
    ("isrealobj", (M,), {}), ("ndim", (M,), {}), ("shape", (M,), {}), ("size", (M, 1), {}),
    ("meshgrid", (np.arange(2), np.arange(3)), {}), ("meshgrid", (np.arange(2), np.arange(3)),
                                                      {"indexing": "ij", "sparse": True}),
    ("sort_complex", (np.array([2 + 1j, 1 + 3j, 1 + 2j], np.complex64),), {}),
]


@pytest.mark.parametrize("name,args,kwargs", MISC_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(MISC_CASES)])
def test_misc(name, args, kwargs):
    check(name, *args, **kwargs)


def test_piecewise():
    x = np.arange(-2.0, 3.0, dtype=np.float32)
    check("piecewise", x, L([x < 0]), L([lambda v: -v, lambda v: v * 2]))
    check("piecewise", x, L([x < 0, x > 1]), L([0.0, lambda v: v ** 2, 9.0]))


SORT_CASES = [
    ("sort", (M,), {}), ("sort", (M,), {"axis": 0}), ("sort", (M,), {"axis": None}),
    ("sort", (np.array([np.nan, 1.0, -0.0, 0.0, -np.inf]),), {}), ("sort", (B,), {}),
    ("sort", (M,), {"descending": True}), ("sort", (M,), {"kind": "quicksort"}),
    ("argsort", (M,), {}), ("argsort", (np.array([3, 1, 2, 1]),), {"descending": True}),
    ("argsort", (np.array([np.nan, 1.0, -0.0, 0.0]),), {}), ("argsort", (M,), {"axis": None}),
    ("argsort", (np.array([3, 1, 2, 1]),), {"stable": False}),
    ("lexsort", (L([np.array([1, 1, 0]), np.array([2, 1, 1])]),), {}),
    ("lexsort", (L([M[0], M[1]]),), {}), ("lexsort", (L([]),), {}),
    ("partition", (V, 2), {}), ("partition", (M, 1, 0), {}), ("argpartition", (V, 3), {}),
    ("argpartition", (np.array([3, 1, 2, 1, 5]), 2), {}),
    ("searchsorted", (np.array([1, 2, 2, 3]), np.array([2, 0, 5])), {"side": "right"}),
    ("searchsorted", (np.array([1.0, 2.0, np.nan]), np.nan), {}),
    ("searchsorted", (np.sort(V), M), {}), ("searchsorted", (np.arange(4), 2), {"side": "bad"}),
    ("searchsorted", (np.array([3, 1, 2]), 2), {"sorter": np.array([1, 2, 0])}),
    ("searchsorted", (np.zeros(0), V), {}), ("searchsorted", (M, 1.0), {}),
    ("digitize", (np.array([0.5, 1.0, 2.5]), np.array([1.0, 2.0])), {}),
    ("digitize", (np.array([0.5, 1.0, 2.5]), np.array([2.0, 1.0])), {"right": True}),
    ("digitize", (V, np.array([-1.0, 0.0, 1.0])), {}),
]


@pytest.mark.parametrize("name,args,kwargs", SORT_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(SORT_CASES)])
def test_sorting(name, args, kwargs):
    check(name, *args, **kwargs)


STAT_CASES = [
    ("quantile", (M, 0.3), {}), ("quantile", (M, np.array([0.1, 0.9])), {"axis": 1}),
    ("quantile", (M, 0.5), {"axis": (0, 1), "keepdims": True}), ("percentile", (M, 40), {}),
    ("percentile", (M, np.array([10, 90])), {"axis": 0, "method": "nearest"}),
    ("median", (M,), {"axis": 0}), ("median", (M,), {"keepdims": True}), ("median", (NAN,), {}),
    ("nanmedian", (NAN,), {"axis": 1}), ("nanquantile", (NAN, 0.25), {}),
    ("nanpercentile", (NAN, np.array([25.0, 75.0])), {"axis": 0}),
    ("quantile", (M, 0.3), {"method": "lower"}), ("quantile", (M, 0.3), {"method": "higher"}),
    ("quantile", (M, 0.3), {"method": "midpoint"}), ("quantile", (M, 0.3), {"method": "bad"}),
    ("quantile", (M, 0.3), {"method": "inverted_cdf"}), ("quantile", (np.arange(5), 0.5), {}),
    ("quantile", (V, 0.4), {"method": "inverted_cdf", "weights": np.arange(6.0)}),
    ("nanmax", (NAN,), {"axis": 1}), ("nanmin", (NAN,), {}), ("nansum", (NAN,), {"axis": 0}),
    ("nanprod", (NAN,), {}), ("nanmean", (NAN,), {"axis": 1}), ("nanvar", (NAN,), {"ddof": 1}),
    ("nanstd", (NAN,), {"axis": 0}), ("nanargmax", (NAN,), {"axis": 1}),
    ("nanargmin", (NAN,), {}), ("nancumsum", (NAN,), {"axis": 1}), ("nancumprod", (NAN,), {}),
    ("cov", (M,), {}), ("cov", (M,), {"rowvar": False, "ddof": 0}), ("cov", (M[0], M[1]), {}),
    ("cov", (M,), {"fweights": np.array([1, 2, 1, 1]), "aweights": np.arange(1.0, 5.0)}),
    ("cov", (M[0],), {}), ("corrcoef", (M,), {}), ("corrcoef", (M[0], M[1]), {}),
    ("bincount", (np.array([0, 1, 1, 3]),), {}), ("bincount", (np.array([0, 1, 1, 3]),),
                                                   {"weights": np.arange(4.0), "minlength": 6}),
    ("bincount", (np.array([0, 1, 7]),), {"length": 4}),
    ("histogram", (V,), {}), ("histogram", (V, 3), {"range": (-1.0, 1.0), "density": True}),
    ("histogram", (V, np.array([-3.0, 0.0, 3.0])), {"weights": np.ones(6)}),
    ("histogram_bin_edges", (V, 4), {}),
]


@pytest.mark.parametrize("name,args,kwargs", STAT_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(STAT_CASES)])
def test_statistics(name, args, kwargs):
    check(name, *args, **kwargs)


SET_A, SET_B = np.array([3, 1, 2, 3, 1, 5, 2]), np.array([2, 5, 7, 2])
SET_CASES = [
    ("unique", (SET_A,), {}), ("unique", (SET_A,), {"return_index": True,
                                                    "return_inverse": True,
                                                    "return_counts": True}),
    ("unique", (SET_A,), {"size": 6}), ("unique", (SET_A,), {"size": 6, "fill_value": -1,
                                                          "return_counts": True}),
    ("unique", (np.array([1.0, np.nan, 2.0, np.nan]),), {}),
    ("unique", (np.array([1.0, np.nan, 2.0, np.nan]),), {"equal_nan": False}),
    ("unique", (np.array([[1, 2], [0, 1], [1, 2]]),), {"axis": 0, "return_inverse": True}),
    ("unique", (np.zeros(0),), {"size": 2, "fill_value": 1.0}), ("unique", (SET_A.reshape(7, 1),),
                                                                  {"return_inverse": True}),
    ("unique_values", (SET_A,), {}), ("unique_counts", (SET_A,), {}),
    ("unique_inverse", (SET_A,), {}), ("unique_all", (SET_A,), {}),
    ("isin", (SET_A, SET_B), {}), ("isin", (SET_A.reshape(7, 1), SET_B), {"invert": True}),
    ("intersect1d", (SET_A, SET_B), {}), ("intersect1d", (SET_A, SET_B), {"return_indices": True}),
    ("intersect1d", (SET_A, SET_B), {"size": 4}), ("union1d", (SET_A, SET_B), {}),
    ("union1d", (SET_A, SET_B), {"size": 7, "fill_value": 0}), ("setdiff1d", (SET_A, SET_B), {}),
    ("setdiff1d", (SET_A, SET_B), {"size": 4, "fill_value": -1}), ("setxor1d", (SET_A, SET_B), {}),
    ("setxor1d", (SET_A, SET_B), {"size": 5}),
]


@pytest.mark.parametrize("name,args,kwargs", SET_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(SET_CASES)])
def test_setops(name, args, kwargs):
    check(name, *args, **kwargs)


NUMERIC_CASES = [
    ("diff", (V,), {}), ("diff", (M,), {"n": 2, "axis": 0}),
    ("diff", (M,), {"prepend": 0.0, "append": np.ones((3, 1))}),
    ("diff", (np.array([True, False, False]),), {}), ("diff", (2.0,), {}),
    ("ediff1d", (M,), {}), ("ediff1d", (V,), {"to_begin": np.array([7, 8]), "to_end": 9.0}),
    ("gradient", (V,), {}), ("gradient", (M,), {}), ("gradient", (M, 2.0), {"axis": 1}),
    ("gradient", (V, np.array([0.0, 1, 3, 4, 7, 8])), {}),
    ("trapezoid", (V,), {}), ("trapezoid", (M,), {"dx": 0.5, "axis": 0}),
    ("trapezoid", (V, np.arange(6.0) ** 2), {}),
    ("interp", (np.array([-1.0, 0.5, 2.0, 3.9, 5.0]), np.array([0.0, 1, 2.5, 4]),
                np.array([1.0, 3, 2, 0])), {}),
    ("interp", (np.array([-1.0, 5.0]), np.array([0.0, 1.0]), np.array([1.0, 3.0])),
     {"left": -9.0, "right": "extrapolate"}),
    ("interp", (np.array([-1.0, 0.5, 5.0]), np.array([0.0, 1, 2.5]), np.array([1.0, 3, 2])),
     {"period": 3.0}),
    ("unwrap", (np.array([0.0, 3.0, 6.5, 0.2, -3.0]),), {}),
    ("unwrap", (np.array([0, 3, 7, 1]),), {"period": 4}),
    ("convolve", (V, V[:3]), {}), ("convolve", (V, V[:3]), {"mode": "same"}),
    ("convolve", (V[:3], V), {"mode": "valid"}), ("correlate", (V, V[:3]), {}),
    ("correlate", (V[:2], V), {"mode": "full"}), ("convolve", (np.arange(4), np.arange(3)), {}),
    ("correlate", (rand((4,), np.complex64), rand((2,), np.complex64)), {}),
    ("convolve", (V, V), {"mode": "bad"}), ("convolve", (M, V), {}),
    ("vander", (np.array([1.0, 2.0, 3.0]),), {}), ("vander", (np.array([1, 2, 3]), 2),
                                                  {"increasing": True}),
    ("trim_zeros", (np.array([0, 0, 1, 2, 0]),), {}), ("trim_zeros", (np.array([0, 1, 0]), "b"),
                                                       {}),
    ("hanning", (5,), {}), ("hamming", (6,), {}), ("blackman", (5,), {}), ("bartlett", (5,), {}),
    ("kaiser", (6, 14.0), {}), ("hanning", (1,), {}), ("kaiser", (0, 1.0), {}),
    ("polyval", (np.array([1.0, -2.0, 3.0]), V), {}), ("polyval", (rand((3, 2)), rand((2,))), {}),
    ("polyadd", (np.array([1.0, -2.0, 3.0]), np.array([2.0, 0.5])), {}),
    ("polysub", (np.array([2.0, 0.5]), np.array([1.0, -2.0, 3.0])), {}),
    ("polymul", (np.array([1.0, -2.0, 3.0]), np.array([2.0, 0.5])), {}),
    ("polydiv", (np.array([1.0, 3, 3, 1]), np.array([1.0, 1])), {}),
    ("polyder", (np.array([1.0, -2.0, 3.0, 4.0]),), {"m": 2}),
    ("polyint", (np.array([1.0, -2.0, 3.0]),), {"m": 2, "k": np.array([1.0, 2.0])}),
    ("poly", (np.array([1.0, 2.0, 3.0]),), {}),
]


@pytest.mark.parametrize("name,args,kwargs", NUMERIC_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(NUMERIC_CASES)])
def test_numeric(name, args, kwargs):
    check(name, *args, **kwargs)


INDEX_CASES = [
    ("indices", ((2, 3),), {}), ("indices", ((2, 3),), {"sparse": True}),
    ("ix_", (np.array([0, 1]), np.array([2, 3, 4])), {}), ("triu_indices", (3,), {}),
    ("tril_indices", (3,), {"k": -1, "m": 4}), ("triu_indices_from", (np.ones((2, 3)), 1), {}),
    ("diag_indices", (3, 2), {}), ("diag_indices_from", (np.ones((2, 2)),), {}),
    ("unravel_index", (np.array([5, 7, 20]), (3, 4)), {}), ("unravel_index", (-1, (3, 4)), {}),
    ("ravel_multi_index", ((np.array([1, 2]), np.array([3, 5])), (3, 4)), {"mode": "clip"}),
    ("ravel_multi_index", ((np.array([1, 2]), np.array([3, 0])), (3, 4)), {"order": "F"}),
    ("fill_diagonal", (np.zeros((3, 3)), 5.0), {"inplace": False}),
    ("fill_diagonal", (np.zeros((3, 4)), np.array([1.0, 2.0])), {"inplace": False}),
    ("packbits", (np.array([1, 0, 1, 1, 0, 0, 0, 1, 1]),), {}),
    ("unpackbits", (np.array([177, 3], np.uint8),), {"count": 11}),
    ("put", (np.zeros(5), np.array([0, 3]), np.array([1.0, 2.0])), {"inplace": False}),
    ("place", (np.arange(5.0), np.arange(5) > 2, np.array([7.0, 8.0])), {"inplace": False}),
    ("take", (M, np.array([0, 2, -1, 5, -4]), 1), {}), ("take", (M, 4), {}),
    ("take", (M, np.array([0, 5]), 1), {"mode": "clip"}), ("take", (M, np.array([-1, 5])),
                                                          {"mode": "wrap"}),
    ("take", (M, np.array([0, 9])), {"fill_value": -1.0}),
    ("take_along_axis", (M, np.array([[2, 0], [1, -1], [0, 9]]), 1), {}),
    ("take_along_axis", (M.ravel(), np.array([0, 3]), None), {}),
    ("choose", (np.array([0, 1, 2]), L([np.ones(3), 2 * np.ones(3), 3 * np.ones(3)])), {}),
    ("choose", (np.array([0, 4]), L([np.ones(2), np.zeros(2)])), {"mode": "wrap"}),
    ("compress", (np.array([True, False, True]), M, 0), {}), ("extract", (M > 0, M), {}),
    ("extract", (M > 0, M), {"size": 8, "fill_value": -1.0}),
]


@pytest.mark.parametrize("name,args,kwargs", INDEX_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(INDEX_CASES)])
def test_index_functions(name, args, kwargs):
    check(name, *args, **kwargs)


def test_grid_objects():
    for f in (lambda m: m.mgrid[0:3, 0:2], lambda m: m.ogrid[0:3, 0:2],
              lambda m: m.mgrid[0:1:5j], lambda m: m.mgrid[0.0:1.0:0.5],
              lambda m: m.r_[1:4, 0, m.array([5, 6])], lambda m: m.c_[m.ones(2), m.zeros(2)],
              lambda m: m.r_["-1", m.ones((2, 2)), m.zeros((2, 1))], lambda m: m.s_[1:2],
              lambda m: m.index_exp[1:2], lambda m: m.c_[m.ones((2, 2)), m.array([1.0, 2])]):
        check("grid", fn=lambda m, f=f: (lambda: f(m)))


def test_ufunc_objects_and_vectorize():
    cases = [lambda j: j.add.reduce(M, axis=1), lambda j: j.multiply.outer(V[:3], V[:2]),
             lambda j: j.add.accumulate(V), lambda j: j.subtract.reduce(V),
             lambda j: j.add.at(np.zeros(3), np.array([0, 0, 2]), 1.0, inplace=False),
             lambda j: j.add.reduceat(np.arange(8), np.array([0, 4, 1, 5])),
             lambda j: j.maximum.reduce(M, axis=0), lambda j: j.logaddexp.reduce(V),
             lambda j: j.frompyfunc(lambda a, b: a * b + 1, 2, 1, identity=1).reduce(V),
             lambda j: j.logical_and.reduce(B, axis=1), lambda j: j.negative(V),
             lambda j: j.vectorize(lambda a, b: a + b)(V, 2.0),
             lambda j: j.vectorize(j.dot, signature="(n),(n)->()")(M, np.ones(4)),
             lambda j: j.apply_along_axis(j.sum, 1, rand((2, 3, 4))),
             lambda j: j.apply_along_axis(lambda v: v[:2] * 2, 0, M),
             lambda j: j.apply_over_axes(j.sum, rand((2, 3, 4)), [0, 2])]
    for i, f in enumerate(cases):
        check(f"case{i}", fn=lambda m, f=f: (lambda: f(m)))
    assert dnp.add.identity == 0 and dnp.add.nin == 2 and repr(dnp.add) == "<jnp.ufunc 'add'>"


def test_more_grads_vmap_prims():
    for fn in (lambda m: lambda a: m.sort(a, axis=0), lambda m: lambda a: m.quantile(a, 0.3),
               lambda m: lambda a: m.clip(a, -0.5, 0.5), lambda m: lambda a: m.round(a, 1),
               lambda m: lambda a: m.where(a > 0, a, 2 * a), lambda m: m.nanmean,
               lambda m: lambda a: m.interp(a, np.array([-3.0, 0.0, 3.0]),
                                            np.array([1.0, 0.0, 2.0])),
               lambda m: lambda a: m.convolve(a[0], a[1:].ravel()),
               lambda m: lambda a: m.diff(a), lambda m: lambda a: m.polyval(a[:2], a[2]),
               lambda m: lambda a: m.cov(a),
               lambda m: lambda a: m.take(a, np.array([2, 0]), axis=1),
               lambda m: lambda a: m.gradient(a, axis=0), lambda m: lambda a: m.median(a)):
        check_grad(fn, M, rtol=1e-4)
        check_vmap(fn, rand((2, 3, 4), seed=9))
    for fn in (lambda m: lambda a: m.sort(a, descending=True), lambda m: m.argsort,
               lambda m: lambda a: m.lexsort((a, a)), lambda m: lambda a: m.clip(a, 0, 1),
               lambda m: lambda a: m.round(a, 2), lambda m: lambda a: m.take(a, np.array([1])),
               lambda m: lambda a: m.nansum(a), lambda m: lambda a: m.count_nonzero(a)):
        check_prims(fn, V)


def test_public_namespace():
    missing = sorted(n for n in dir(jnp) if not n.startswith("_") and not hasattr(dnp, n))
    assert missing == [], missing
    extra = sorted(n for n in dir(dnp) if not n.startswith("_") and not hasattr(jnp, n))
    assert extra == [], extra


def test_polyfit_matches_jax():
    """Scaled-Vandermonde least squares, as JAX: 1-D/2-D y, weights, full and cov outputs
    (lstsq's SVD may differ from JAX's in the last bits)."""
    x = np.linspace(0, 2, 11).astype(np.float32)
    y = (1 + 2 * x - 0.5 * x ** 2 + 0.01 * np.sin(7 * x)).astype(np.float32)
    cases = [((x, y, 2), {}), ((x, np.stack([y, 2 * y], 1), 1), {}),
             ((x, y, 2), {"w": np.linspace(1, 2, 11).astype(np.float32)}),
             ((x, y, 1), {"full": True}), ((x, y, 2), {"cov": True})]
    for args, kw in cases:
        got, want = dnp.polyfit(*args, **kw), jnp.polyfit(*args, **kw)
        got, want = (got, want) if isinstance(got, tuple) else ((got,), (want,))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=2e-5, atol=1e-9)
    with pytest.raises(ValueError, match="deg >= 0"):
        dnp.polyfit(x, y, -1)


def test_contains_as_jax():
    """`q in arr`: a bool for a 1-D array and a scalar query; JAX's errors otherwise."""
    for arr, q in [(np.arange(4.0, dtype=np.float32), 2.0), (np.arange(4), 7)]:
        assert (q in dnp.asarray(arr)) == (q in jnp.asarray(arr))
    for arr, q, exc in [(np.ones((2, 2), np.float32), 1.0, ValueError),
                        (np.ones(3, np.float32), np.ones(2, np.float32), ValueError),
                        (np.ones(3, np.float32), None, TypeError)]:
        with pytest.raises(exc) as got:
            q in dnp.asarray(arr)  # noqa: B015
        with pytest.raises(exc) as want:
            q in jnp.asarray(arr)  # noqa: B015
        assert str(got.value) == str(want.value)
