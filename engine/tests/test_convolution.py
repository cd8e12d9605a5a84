"""Convolutions against real JAX: `lax.conv_general_dilated` over many configurations
(1-D/2-D/3-D, layouts given as strings and as ConvDimensionNumbers, strides, every padding
form, lhs and rhs dilation, feature and batch groups) in every mode of the oracle (eager
value, jaxpr round trip, JVP, VJP of both operands, grad, vmap of either or both operands),
the dtypes JAX allows, jaxpr text, errors, the wrappers (`conv`,
`conv_with_general_padding`, `conv_transpose`), the shape and dimension-number helpers,
and `jnp.convolve`/`jax.scipy.signal`.
"""

from __future__ import annotations

import didax
import jax
import numpy as np
import pytest
from oracle import (
    bfloat16,
    check_error_against_jax,
    check_many,
    random_value,
    same,
    x64_mode,
)

# (lhs shape, rhs shape, conv_general_dilated keyword arguments)
CONFIGS = {
    "1d_same": ((2, 3, 9), (4, 3, 3), dict(window_strides=(1,), padding="SAME")),
    "1d_strided_valid": ((2, 2, 10), (3, 2, 4), dict(window_strides=(3,), padding="VALID")),
    "1d_nwc_same_lower": ((2, 9, 3), (3, 3, 2), dict(
        window_strides=(2,), padding="SAME_LOWER", dimension_numbers=("NWC", "WIO", "NWC"))),
    "2d_nchw": ((2, 3, 7, 6), (4, 3, 3, 2), dict(window_strides=(1, 1), padding="SAME")),
    "2d_nhwc_strided": ((2, 7, 8, 3), (3, 3, 3, 4), dict(
        window_strides=(2, 3), padding="SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))),
    "2d_explicit_pads_dilations": ((1, 2, 6, 7), (3, 2, 3, 2), dict(
        window_strides=(2, 1), padding=((1, 2), (0, 3)), lhs_dilation=(2, 1),
        rhs_dilation=(1, 2))),
    "2d_negative_pads": ((1, 2, 8, 7), (2, 2, 2, 2), dict(
        window_strides=(1, 1), padding=((-1, 0), (1, -2)))),
    "2d_rhs_dilation_same": ((2, 2, 9, 9), (2, 2, 3, 3), dict(
        window_strides=(1, 2), padding="SAME", rhs_dilation=(2, 3))),
    "2d_mixed_layout": ((5, 6, 2, 3), (2, 3, 4, 3), dict(
        window_strides=(1, 1), padding="VALID", dimension_numbers=("HWNC", "OIHW", "CNHW"))),
    "2d_feature_groups": ((2, 6, 5, 5), (9, 2, 3, 3), dict(
        window_strides=(1, 1), padding="SAME", feature_group_count=3)),
    "2d_depthwise_nhwc": ((2, 6, 6, 4), (3, 3, 1, 8), dict(
        window_strides=(1, 1), padding="VALID", feature_group_count=4,
        dimension_numbers=("NHWC", "HWIO", "NHWC"))),
    "2d_batch_blocks": ((8, 16, 16, 8), (3, 3, 8, 4), dict(  # (windows gathered in blocks)
        window_strides=(1, 1), padding="SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))),
    "2d_batch_groups": ((6, 2, 5, 4), (6, 2, 2, 2), dict(
        window_strides=(1, 1), padding="VALID", batch_group_count=3)),
    "2d_dn_object": ((2, 4, 4, 3), (2, 2, 3, 5), dict(
        window_strides=(1, 1), padding=((1, 1), (0, 0)), dimension_numbers=(
            "dn", (0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2)))),
    "2d_one_feature_nhwc": ((3, 8, 7, 1), (3, 3, 1, 4), dict(
        window_strides=(1, 1), padding="SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))),
    "2d_one_feature_nchw_pads": ((2, 1, 6, 5), (3, 1, 2, 3), dict(
        window_strides=(1, 1), padding=((2, 0), (1, 1)))),
    "3d_ndhwc": ((1, 5, 4, 6, 2), (2, 3, 2, 2, 3), dict(
        window_strides=(1, 2, 1), padding="SAME", rhs_dilation=(1, 1, 2),
        dimension_numbers=("NDHWC", "DHWIO", "NDHWC"))),
}


def _kwargs(kw, lax):
    dn = kw.get("dimension_numbers")
    if isinstance(dn, tuple) and dn and dn[0] == "dn":
        kw = {**kw, "dimension_numbers": lax.ConvDimensionNumbers(*dn[1:])}
    return kw


def _conv(kw):
    return lambda jnp, lax: lambda x, w: lax.conv_general_dilated(x, w, **_kwargs(kw, lax))


def _cases(lhs, rhs, dtype, seed, modes=("eval", "jaxpr", "jvp", "vjp", "vmap", "grad")):
    rng = np.random.default_rng(seed)
    args = [random_value(rng, lhs, dtype), random_value(rng, rhs, dtype)]
    return dict(args=args, modes=modes, seed=seed)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_conv_general_dilated_matches_jax(name):
    lhs, rhs, kw = CONFIGS[name]
    check_many(_conv(kw), [_cases(lhs, rhs, np.float32, 0)])


def test_conv_finite_differences_float64():
    lhs, rhs, kw = CONFIGS["2d_explicit_pads_dilations"]
    with x64_mode():
        check_many(_conv(kw), [_cases(lhs, rhs, np.float64, 1, ("eval", "vjp", "fd"))])
        lhs, rhs, kw = CONFIGS["2d_batch_groups"]
        check_many(_conv(kw), [_cases(lhs, rhs, np.float64, 2, ("eval", "vjp", "fd"))])


@pytest.mark.parametrize("dtype", [np.float16, bfloat16, np.complex64])
def test_conv_dtypes(dtype):
    lhs, rhs, kw = CONFIGS["2d_feature_groups"]
    check_many(_conv(kw), [_cases(lhs, rhs, dtype, 3, ("eval", "vjp", "vmap"))])


def test_conv_integer_and_preferred_element_type():
    lhs, rhs, kw = CONFIGS["1d_same"]
    check_many(_conv(kw), [_cases(lhs, rhs, np.int32, 4, ("eval", "vmap"))])
    kw = {**kw, "preferred_element_type": np.float32}
    check_many(_conv(kw), [_cases(lhs, rhs, np.int8, 5, ("eval",)),
                           _cases(lhs, rhs, np.float16, 6, ("eval", "vjp"))])
    kw = {**kw, "precision": "highest", "preferred_element_type": None}
    check_many(_conv(kw), [_cases(lhs, rhs, np.float32, 7, ("eval", "grad"))])


def _same_text(build, *args):
    got = str(didax.make_jaxpr(build(didax))(*args))
    want = str(jax.make_jaxpr(build(jax))(*args))
    assert got == want, f"\n--- didax\n{got}\n--- JAX\n{want}"


X = np.linspace(-1, 1, 2 * 4 * 5 * 6, dtype=np.float32).reshape(2, 4, 5, 6)
W = np.linspace(-1, 1, 6 * 2 * 3 * 2, dtype=np.float32).reshape(6, 2, 3, 2)


def _grouped(top, x, w):
    return top.lax.conv_general_dilated(x, w, (2, 1), ((1, 0), (1, 1)), rhs_dilation=(1, 2),
                                        feature_group_count=2, precision="highest")


def test_jaxpr_text_matches_jax():
    _same_text(lambda top: lambda x, w: _grouped(top, x, w), X, W)
    _same_text(lambda top: top.grad(lambda x, w: _grouped(top, x, w).sum(), (0, 1)), X, W)
    _same_text(lambda top: top.vmap(lambda x, w: _grouped(top, x, w)), X[None], W[None])
    _same_text(lambda top: top.vmap(lambda x: _grouped(top, x, W), in_axes=2), X[:, :, None])
    _same_text(lambda top: lambda x, w: top.lax.conv(
        x[:, :2].astype(top.numpy.complex64), w.astype(top.numpy.complex64), (1, 1),
        "SAME"), X, W)


def test_lowering_matches_jax():
    got = didax.jit(lambda x, w: _grouped(didax, x, w)).lower(X, W).as_text()
    want = jax.jit(lambda x, w: _grouped(jax, x, w)).lower(X, W).as_text()
    op = [ln.strip() for ln in got.splitlines() if "convolution" in ln]
    assert op == [ln.strip() for ln in want.splitlines() if "convolution" in ln]


def test_eager_equals_jit_exactly():
    f = lambda x, w: _grouped(didax, x, w)  # noqa: E731
    assert np.array_equal(np.asarray(f(X, W)), np.asarray(didax.jit(f)(X, W)))
    assert np.array_equal(np.asarray(f(X, W)), np.asarray(_grouped(jax, X, W)))


@pytest.mark.parametrize("name", ["2d_one_feature_nhwc", "2d_nhwc_strided", "2d_nchw",
                                  "2d_explicit_pads_dilations", "2d_depthwise_nhwc",
                                  "3d_ndhwc", "1d_strided_valid", "1d_nwc_same_lower",
                                  "2d_negative_pads", "2d_rhs_dilation_same",
                                  "2d_mixed_layout", "2d_feature_groups",
                                  "2d_batch_blocks"])
def test_conv_runs_on_numpy_under_the_tape(monkeypatch, name):
    """Eager reverse mode computes convolutions and their transposes with NumPy (XLA's CPU
    convolution dispatched eagerly is slow there): the same values and gradients as JAX,
    within float32 rounding; plain eager code still compiles them and equals jit and JAX
    bit for bit."""
    from didax._src.lax import dispatch
    compile_equation, seen = dispatch.compile_equation, []

    def spy(prim, *args):
        seen.append(prim.name)
        return compile_equation(prim, *args)
    monkeypatch.setattr(dispatch, "_by_key", {})
    monkeypatch.setattr(dispatch, "compile_equation", spy)
    lhs_shape, rhs_shape, kw = CONFIGS[name]
    rng = np.random.default_rng(3)
    x, w = (rng.standard_normal(s).astype(np.float32) for s in (lhs_shape, rhs_shape))

    def loss(lib):
        conv = lambda x, w: lib.lax.conv_general_dilated(x, w, **kw)  # noqa: E731
        return conv, lambda x, w: (lib.numpy.tanh(conv(x, w)) ** 2).sum()
    conv, f = loss(didax)
    conv_jax, f_jax = loss(jax)
    argnums = (0, 1)  # (the kernel's cotangent, grouped too, in the forward's layout)
    value, grads = didax.value_and_grad(f, argnums)(x, w)
    value_jax, grads_jax = jax.value_and_grad(f_jax, argnums)(x, w)
    assert "conv_general_dilated" not in seen
    np.testing.assert_allclose(value, value_jax, rtol=1e-5)
    for g, gj in zip(grads, grads_jax):
        np.testing.assert_allclose(g, gj, rtol=1e-4, atol=1e-5 * np.abs(gj).max())
    assert np.array_equal(np.asarray(conv(x, w)), np.asarray(didax.jit(conv)(x, w)))
    assert np.array_equal(np.asarray(conv(x, w)), np.asarray(conv_jax(x, w)))
    assert "conv_general_dilated" in seen


@pytest.mark.parametrize("build,args", [
    (lambda l: lambda x, w: l.conv_general_dilated(x, w, (1,), "SAME"),
     (np.ones((1, 2, 5), np.float32), np.ones((3, 2, 2), np.float16))),
    (lambda l: lambda x, w: l.conv_general_dilated(x, w, (1, 1), "SAME"),
     (np.ones((1, 4, 5, 5), np.float32), np.ones((3, 3, 2, 2), np.float32))),
    (lambda l: lambda x, w: l.conv_general_dilated(x, w, (1, 1), "SAME",
                                                   feature_group_count=3),
     (np.ones((1, 4, 5, 5), np.float32), np.ones((3, 2, 2, 2), np.float32))),
    (lambda l: lambda x, w: l.conv_general_dilated(x, w, (1, 1), "SAME",
                                                   batch_group_count=2),
     (np.ones((3, 2, 5, 5), np.float32), np.ones((4, 2, 2, 2), np.float32))),
    (lambda l: lambda x, w: l.conv_general_dilated(x, w, (1,), "SAME"),
     (np.ones((1, 2, 5), np.float32), np.ones((3, 2, 2, 2), np.float32))),
    (lambda l: lambda x, w: l.conv_general_dilated(x, w, (1, 1), "SAME", (2, 1)),
     (np.ones((1, 2, 5, 5), np.float32), np.ones((3, 2, 2, 2), np.float32))),
    (lambda l: lambda x, w: l.conv_general_dilated(x, w, (1,), "SAME",
                                                   dimension_numbers=("NWC", "WIO")),
     (np.ones((1, 5, 2), np.float32), np.ones((2, 2, 3), np.float32))),
    (lambda l: lambda x, w: l.conv_general_dilated(x, w, (1,), "SAME",
                                                   dimension_numbers=("NWC", "WIX", "NWC")),
     (np.ones((1, 5, 2), np.float32), np.ones((2, 2, 3), np.float32))),
    (lambda l: lambda x, w: l.conv_general_dilated(x, w, (1, 1), ((-9, 0), (0, 0))),
     (np.ones((1, 2, 5, 5), np.float32), np.ones((3, 2, 2, 2), np.float32))),
    (lambda l: lambda x, w: l.conv_general_dilated(x, w, (1,), [3]),
     (np.ones((1, 2, 5), np.float32), np.ones((3, 2, 2), np.float32))),
])
def test_conv_errors_match_jax(build, args):
    check_error_against_jax(lambda jnp, lax: build(lax), args)


def test_dimension_number_and_shape_helpers():
    def helpers(top, np_, lax):
        dn = lax.conv_dimension_numbers((1, 2, 3, 4), (1, 2, 3, 4), ("NHWC", "HWIO", "NHWC"))
        return (
            dn, lax.conv_dimension_numbers((1, 2, 3), (1, 2, 3), None),
            lax.conv_general_permutations(("NDHWC", "DHWIO", "NCDHW")),
            lax.conv_general_shape_tuple((2, 9, 8, 3), (3, 3, 3, 5), (2, 1), "SAME",
                                         ("NHWC", "HWIO", "NCHW")),
            lax.conv_shape_tuple((2, 3, 9, 8), (4, 3, 2, 2), (1, 3), ((1, 0), (2, 2))),
            lax.conv_transpose_shape_tuple((2, 9, 8, 3), (3, 3, 3, 5), (2, 2), "VALID",
                                           ("NHWC", "HWIO", "NHWC")),
            lax.padtype_to_pads((9, 8), (3, 4), (2, 3), "SAME_LOWER"),
            lax.padtype_to_pads((9, 8), (3, 4), (2, 3), "SAME"))
    got, want = helpers(didax, None, didax.lax), helpers(jax, None, jax.lax)
    assert repr(got) == repr(want)


@pytest.mark.parametrize("padding,kernel,tk,consistent", [
    ("SAME", (3, 3, 2, 4), False, False), ("VALID", (2, 3, 4, 2), True, False),
    (((1, 2), (0, 1)), (3, 2, 2, 4), False, False), (((1, 0), (1, 1)), (3, 3, 2, 4), False,
                                                     True)])
def test_conv_transpose(padding, kernel, tk, consistent):
    def build(jnp, lax):
        return lambda x, w: lax.conv_transpose(x, w, (2, 1), padding, transpose_kernel=tk,
                                               use_consistent_padding=consistent)
    check_many(build, [_cases((2, 5, 4, 2), kernel, np.float32, 8, ("eval", "vjp", "vmap"))])


def test_conv_wrappers():
    def build(jnp, lax):
        def f(x, w):
            return (lax.conv(x, w, (1, 2), "VALID"),
                    lax.conv_with_general_padding(x, w, (2, 1), ((1, 1), (2, 0)), (1, 2),
                                                  (2, 1)),
                    lax.conv_with_general_padding(x, w, (1, 1), "SAME", None, None))
        return f
    check_many(build, [_cases((2, 3, 6, 7), (4, 3, 2, 3), np.float32, 9, ("eval", "grad"))])


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_jnp_convolve_correlate(mode):
    def build(jnp, lax):
        return lambda a, v: (jnp.convolve(a, v, mode), jnp.correlate(a, v, mode),
                             jnp.correlate(v, a, mode))
    rng = np.random.default_rng(10)
    args = [random_value(rng, (7,), np.float32), random_value(rng, (3,), np.float32)]
    check_many(build, [dict(args=args, modes=("eval", "jaxpr", "vjp", "vmap"))])
    _same_text(lambda top: lambda a, v: top.numpy.convolve(a, v, mode), *args)


@pytest.mark.parametrize("fn,mode", [("convolve", "same"), ("correlate", "full"),
                                     ("convolve2d", "valid"), ("correlate2d", "same"),
                                     ("correlate2d", "full"), ("correlate2d", "valid")])
def test_scipy_signal(fn, mode):
    def build(jnp, lax):
        sig = (didax if jnp is didax.numpy else jax).scipy.signal
        return lambda a, v: getattr(sig, fn)(a, v, mode)
    rng = np.random.default_rng(11)
    shapes = [((5, 6), (2, 3)), ((2, 3), (5, 6)), ((4, 4), (4, 4))]
    cases = [dict(args=[random_value(rng, s1, np.float32), random_value(rng, s2, np.float32)],
                  modes=("eval", "vjp")) for s1, s2 in shapes]
    check_many(build, cases)


def test_scipy_signal_fft_and_detrend():
    rng = np.random.default_rng(12)
    a, v = random_value(rng, (6, 5), np.float32), random_value(rng, (3, 2), np.float32)
    same(lambda top, jnp, lax: (top.scipy.signal.fftconvolve(a, v, "same"),
                                top.scipy.signal.fftconvolve(a, a[:, :3], axes=1),
                                top.scipy.signal.fftconvolve(v, v[::-1], "valid", axes=-2),
                                top.scipy.signal.convolve(a, v, method="fft"),
                                top.scipy.signal.detrend(a, axis=0),
                                top.scipy.signal.detrend(a, type="constant", bp=[2])),
         scale=50)
