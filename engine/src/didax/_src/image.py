"""`jax.image`: resizing (`resize`) and resampling under a scale and a translation
(`scale_and_translate`) with the kernels JAX offers (nearest, linear, Keys cubic, PyTorch's
cubic, Lanczos 3/5, area), optionally antialiased when downsampling.

As in JAX (jax/_src/image/scale.py), every resized dimension gets a dense
(input size x output size) weight matrix, and one einsum contracts the image with all of
them: the result differentiates, batches and compiles like any other jnp program.
Nearest-neighbour resizing gathers, keeping the image's dtype.
May import core, dtypes, lax, jit and numpy (the implementation modules).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence

import numpy as np

from didax._src import dtypes
from didax._src.lax.reductions import Precision
from didax._src.numpy import array_creation as ac
from didax._src.numpy import einsum as es
from didax._src.numpy import lax_numpy as ln
from didax._src.numpy import reductions as red
from didax._src.numpy import ufuncs as uf
from didax._src.numpy import ufuncs_math as um
from didax._src.numpy.util import canonicalize_axis, jit_like_jax, promote_dtypes_inexact

_F32_EPS = float(np.finfo(np.float32).eps)


class ResizeMethod(enum.Enum):
    """The resampling kernels `resize` and `scale_and_translate` accept (JAX's enum)."""

    NEAREST = 0
    LINEAR = 1
    LANCZOS3 = 2
    LANCZOS5 = 3
    CUBIC = 4
    CUBIC_PYTORCH = 5
    AREA = 6

    @staticmethod
    def from_string(s: str) -> ResizeMethod:
        """The method a name such as "bilinear" or "lanczos3" denotes."""
        method = _NAMES.get(s)
        if method is None:
            raise ValueError(f'Unknown resize method "{s}"')
        return method


_NAMES = {
    "nearest": ResizeMethod.NEAREST,
    **dict.fromkeys(["linear", "bilinear", "trilinear", "triangle"], ResizeMethod.LINEAR),
    "lanczos3": ResizeMethod.LANCZOS3,
    "lanczos5": ResizeMethod.LANCZOS5,
    **dict.fromkeys(["cubic", "bicubic", "tricubic"], ResizeMethod.CUBIC),
    **dict.fromkeys(["cubic-pytorch", "bicubic-pytorch"], ResizeMethod.CUBIC_PYTORCH),
    "area": ResizeMethod.AREA,
}

# ---- kernels (x is the distance |sample - input index|, already >= 0) -----------------


def _triangle(x):
    return uf.maximum(0, 1 - uf.abs(x))


def _lanczos(radius: float):
    def kernel(x):
        y = radius * um.sin(np.pi * x) * um.sin(np.pi * x / radius)
        # y / (pi x)^2, continued by its limit 1 near x = 0
        safe = ln.where(x != 0, np.pi**2 * x**2, 1)
        out = ln.where(x > 1e-3, y / safe, 1)
        return ln.where(x > radius, 0.0, out)
    return kernel


def _cubic(a: float):
    """The cubic convolution kernel with parameter a: Keys' (a = -0.5) matches Pillow and
    antialiased PyTorch; a = -0.75 is OpenCV's and non-antialiased PyTorch's."""
    def kernel(x):
        near = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
        far = ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a
        return ln.where(x >= 2.0, 0.0, ln.where(x >= 1.0, far, near))
    return kernel


_AREA = "area"  # the area method has no kernel function: weights are interval overlaps

_KERNELS = {
    ResizeMethod.LINEAR: (1, _triangle),
    ResizeMethod.LANCZOS3: (3, _lanczos(3.0)),
    ResizeMethod.LANCZOS5: (5, _lanczos(5.0)),
    ResizeMethod.CUBIC: (2, _cubic(-0.5)),
    ResizeMethod.CUBIC_PYTORCH: (2, _cubic(-0.75)),
    ResizeMethod.AREA: (1, _AREA),
}

# ---- weight matrices -------------------------------------------------------------------


def _normalize(weights):
    """Columns scaled to sum to 1; columns whose weights all but vanish become 0."""
    total = red.sum(weights, axis=0, keepdims=True)
    safe = ln.where(total != 0, total, 1)
    return ln.where(uf.abs(total) > 1000.0 * _F32_EPS, weights / safe, 0)


def _raw_weights(input_size, output_size, inv_scale, translation, kernel, kernel_scale, k,
                 dtype):
    """(input_size + 2k, output_size) kernel weights, and each output's sample position."""
    out_idx = ac.arange(output_size, dtype=dtype)
    sample_f = (out_idx + 0.5) * inv_scale - translation * inv_scale - 0.5
    if kernel is _AREA:
        left = out_idx * inv_scale - translation * inv_scale
        right = left + inv_scale
        in_left = ac.arange(input_size, dtype=dtype)
        overlap = (uf.minimum(right[None, :], in_left[:, None] + 1.0)
                   - uf.maximum(left[None, :], in_left[:, None]))
        return uf.maximum(0.0, overlap), sample_f, None
    expanded = ac.arange(-k, input_size + k, dtype=dtype)
    x = uf.abs(sample_f[None, :] - expanded[:, None]) / kernel_scale
    return kernel(x), sample_f, expanded


def compute_weight_mat(input_size: int, output_size: int, scale, translation, kernel,
                       antialias: bool, edge_padding: bool = False, radius: int | None = None):
    """The (input_size, output_size) matrix mapping one dimension of the image to the
    output (half-centered pixels; the kernel is widened by 1/scale when antialiasing a
    downsample)."""
    dtype = dtypes.result_type(scale, translation)
    inv_scale = 1.0 / scale
    kernel_scale = uf.maximum(inv_scale, 1.0) if antialias else 1.0
    k = 0
    if edge_padding:
        k = radius
        if antialias:
            k = math.ceil(radius * max(1.0 / float(scale), 1.0))
    weights, sample_f, expanded = _raw_weights(input_size, output_size, inv_scale,
                                               translation, kernel, kernel_scale, k, dtype)
    if edge_padding:
        # the weights of samples beyond an edge move onto that edge's pixel
        rows = ln.clip(expanded.astype(np.int32), 0, input_size - 1)
        cols = ac.arange(output_size)
        mat = ac.zeros((input_size, output_size), dtype=dtype)
        return _normalize(mat.at[rows[:, None], cols[None, :]].add(weights))
    weights = _normalize(weights)
    inside = uf.logical_and(sample_f >= -0.5, sample_f <= input_size - 0.5)
    return ln.where(inside[None, :], weights, 0)


def _scale_and_translate(x, output_shape, spatial_dims, scale, translation, kernel,
                         antialias, precision, edge_padding=False, radius=None):
    """x contracted along each spatial dimension with its weight matrix (one einsum)."""
    if len(spatial_dims) == 0:
        return x
    nd = len(output_shape)
    in_indices, out_indices = list(range(nd)), list(range(nd))
    operands = []
    for i, d in enumerate(spatial_dims):
        d = canonicalize_axis(d, x.ndim)
        w = compute_weight_mat(x.shape[d], output_shape[d], scale[i], translation[i],
                               kernel, antialias, edge_padding, radius)
        operands += [w.astype(x.dtype), [d, nd + i]]
        out_indices[d] = nd + i
    return es.einsum(x, in_indices, *operands, out_indices, precision=precision)


def _method_of(method) -> ResizeMethod:
    return ResizeMethod.from_string(method) if isinstance(method, str) else method


def _check_rank(shape, image):
    if len(shape) != image.ndim:
        raise ValueError("shape must have length equal to the number of dimensions of x; "
                         f" {shape} vs {image.shape}")


def _kernel_for(method: ResizeMethod, antialias: bool):
    """(radius, kernel, edge_padding): PyTorch's cubic pads edges only without antialias."""
    if method == ResizeMethod.CUBIC_PYTORCH and antialias:
        method = ResizeMethod.CUBIC
    radius, kernel = _KERNELS[method]
    return radius, kernel, method == ResizeMethod.CUBIC_PYTORCH


def scale_and_translate(image, shape: Sequence[int], spatial_dims: Sequence[int], scale,
                        translation, method, antialias: bool = True,
                        precision=Precision.HIGHEST):
    """The image resampled so that input location x maps to x * scale + translation in
    each of `spatial_dims` (half-centered pixels; samples outside the input give 0)."""
    shape = ac.canonicalize_shape(shape)
    image = ac.asarray(image)
    _check_rank(shape, image)
    method = _method_of(method)
    if method == ResizeMethod.NEAREST:
        raise ValueError("Nearest neighbor resampling is not currently supported "
                         "for scale_and_translate.")
    radius, kernel, edge_padding = _kernel_for(method, antialias)
    image, = promote_dtypes_inexact(image)
    scale, translation = promote_dtypes_inexact(scale, translation)
    return _scale_and_translate(image, shape, spatial_dims, scale, translation, kernel,
                                antialias, precision, edge_padding, radius)


def _resize_nearest(x, output_shape):
    for d, (m, n) in enumerate(zip(x.shape, output_shape)):
        if m == n:
            continue
        # float32 offsets, as JAX computes them (float64 rounds some differently)
        offsets = (ac.arange(n, dtype=np.float32) + 0.5) * m / n
        index = [slice(None)] * x.ndim
        index[d] = um.floor(offsets.astype(np.float32)).astype(np.int32)
        x = x[tuple(index)]
    return x


@jit_like_jax("_resize", static_argnames=("shape", "method", "antialias", "precision"),
              eager_compiled=True)  # under eager grad too: XLA's fused rounding, as JAX
def _resize(image, shape, method, antialias, precision):
    _check_rank(shape, image)
    method = _method_of(method)
    if method == ResizeMethod.NEAREST:
        return _resize_nearest(image, shape)
    image, = promote_dtypes_inexact(image)
    # interpolating kernels leave an unchanged dimension unchanged: skip those
    spatial_dims = tuple(i for i in range(len(shape)) if image.shape[i] != shape[i])
    radius, kernel, edge_padding = _kernel_for(method, antialias)
    scale = [1.0 if shape[d] == 0 else shape[d] / image.shape[d] for d in spatial_dims]
    return _scale_and_translate(image, shape, spatial_dims, scale, [0.0] * len(spatial_dims),
                                kernel, antialias, precision, edge_padding, radius)


def resize(image, shape: Sequence[int], method, antialias: bool = True,
           precision=Precision.HIGHEST):
    """The image resized to `shape` (every dimension; leave batch and channel sizes
    unchanged) with `method` ("nearest", "linear", "cubic", "lanczos3", "lanczos5",
    "cubic-pytorch", "area" or a ResizeMethod). Nearest keeps the dtype; the other
    methods return floats."""
    return _resize(image, ac.canonicalize_shape(shape), method, antialias, precision)
