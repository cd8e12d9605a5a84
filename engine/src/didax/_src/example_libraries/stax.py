"""`jax.example_libraries.stax`: neural networks as (init_fun, apply_fun) pairs.

A layer is a pair: `init_fun(rng, input_shape) -> (output_shape, params)` and
`apply_fun(params, inputs, **kwargs) -> outputs` (`rng=` reaches layers that need
randomness, e.g. Dropout). Combinators (`serial`, `parallel`, `shape_dependent`) build
layers from layers. Keys are split and initializers called in JAX's documented order, so
the same PRNG key gives JAX's parameters.

May import lax, random, nn, nn_initializers and numpy (the implementation modules).
"""

from __future__ import annotations

import functools
import math

from didax._src import random
from didax._src.lax import convolution, windowing
from didax._src.lax import lax as lax_
from didax._src.lax import windowed_reductions as wr
from didax._src.nn import (
    elu,
    gelu,
    leaky_relu,
    log_softmax,
    relu,
    selu,
    sigmoid,
    softmax,
    softplus,
    standardize,
)
from didax._src.nn_initializers import glorot_normal, normal, ones, zeros
from didax._src.numpy import array_creation as ac
from didax._src.numpy import lax_numpy as jnp_core
from didax._src.numpy import manipulation as man
from didax._src.numpy import products
from didax._src.numpy import ufuncs_math as um

glorot = glorot_normal
randn = normal
logsoftmax = log_softmax


# ----------------------------------------------------------------------------------------
# layers with parameters
# ----------------------------------------------------------------------------------------


def Dense(out_dim, W_init=glorot_normal(), b_init=normal()):
    """A fully connected layer: inputs @ W + b."""
    def init_fun(rng, input_shape):
        k1, k2 = random.split(rng)
        params = W_init(k1, (input_shape[-1], out_dim)), b_init(k2, (out_dim,))
        return input_shape[:-1] + (out_dim,), params

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        return products.dot(inputs, W) + b
    return init_fun, apply_fun


def _kernel_and_bias_shapes(dimension_numbers, out_chan, filter_shape, input_shape):
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    spatial = iter(filter_shape)
    kernel = [out_chan if c == "O" else input_shape[lhs_spec.index("C")] if c == "I"
              else next(spatial) for c in rhs_spec]
    return kernel, [out_chan if c == "C" else 1 for c in out_spec]


def _conv_layer(shape_tuple, apply_conv):
    def make(dimension_numbers, out_chan, filter_shape, strides=None, padding="VALID",
             W_init=None, b_init=normal(1e-6)):
        rhs_spec = dimension_numbers[1]
        strides = strides or (1,) * len(filter_shape)
        W_init = W_init or glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))

        def init_fun(rng, input_shape):
            kernel, bias = _kernel_and_bias_shapes(dimension_numbers, out_chan,
                                                   filter_shape, input_shape)
            out_shape = shape_tuple(input_shape, kernel, strides, padding, dimension_numbers)
            k1, k2 = random.split(rng)
            return out_shape, (W_init(k1, kernel), b_init(k2, bias))

        def apply_fun(params, inputs, **kwargs):
            W, b = params
            return apply_conv(inputs, W, strides, padding, dimension_numbers,
                              len(filter_shape)) + b
        return init_fun, apply_fun
    return make


def _forward_conv(inputs, W, strides, padding, dimension_numbers, n):
    one = (1,) * n
    return convolution.conv_general_dilated(inputs, W, strides, padding, one, one,
                                            dimension_numbers=dimension_numbers)


def _transposed_conv(inputs, W, strides, padding, dimension_numbers, n):
    return convolution.conv_transpose(inputs, W, strides, padding,
                                      dimension_numbers=dimension_numbers)


GeneralConv = _conv_layer(convolution.conv_general_shape_tuple, _forward_conv)
GeneralConv.__name__ = GeneralConv.__qualname__ = "GeneralConv"
GeneralConv.__doc__ = "A convolution layer with the given (lhs, rhs, out) layouts."
Conv = functools.partial(GeneralConv, ("NHWC", "HWIO", "NHWC"))
GeneralConvTranspose = _conv_layer(convolution.conv_transpose_shape_tuple, _transposed_conv)
GeneralConvTranspose.__name__ = GeneralConvTranspose.__qualname__ = "GeneralConvTranspose"
GeneralConvTranspose.__doc__ = "A transposed-convolution layer with the given layouts."
Conv1DTranspose = functools.partial(GeneralConvTranspose, ("NHC", "HIO", "NHC"))
ConvTranspose = functools.partial(GeneralConvTranspose, ("NHWC", "HWIO", "NHWC"))


def BatchNorm(axis=(0, 1, 2), epsilon=1e-5, center=True, scale=True,
              beta_init=zeros, gamma_init=ones):
    """Normalizes over `axis` (batch statistics), then scales by gamma and shifts by
    beta (each optional)."""
    axis = (axis,) if jnp_core.isscalar(axis) else axis

    def init_fun(rng, input_shape):
        shape = tuple(d for i, d in enumerate(input_shape) if i not in axis)
        k1, k2 = random.split(rng)
        beta = beta_init(k1, shape) if center else ()
        gamma = gamma_init(k2, shape) if scale else ()
        return input_shape, (beta, gamma)

    def apply_fun(params, x, **kwargs):
        beta, gamma = params
        expand = tuple(None if i in axis else slice(None) for i in range(jnp_core.ndim(x)))
        z = standardize(x, axis, epsilon=epsilon)
        if center and scale:
            return gamma[expand] * z + beta[expand]
        if center:
            return z + beta[expand]
        if scale:
            return gamma[expand] * z
        return z
    return init_fun, apply_fun


# ----------------------------------------------------------------------------------------
# parameter-free layers
# ----------------------------------------------------------------------------------------


def elementwise(fun, **fun_kwargs):
    """A layer applying fun(inputs, **fun_kwargs)."""
    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        return fun(inputs, **fun_kwargs)
    return init_fun, apply_fun


Tanh = elementwise(um.tanh)
Relu = elementwise(relu)
Exp = elementwise(um.exp)
LogSoftmax = elementwise(log_softmax, axis=-1)
Softmax = elementwise(softmax, axis=-1)
Softplus = elementwise(softplus)
Sigmoid = elementwise(sigmoid)
Elu = elementwise(elu)
LeakyRelu = elementwise(leaky_relu)
Selu = elementwise(selu)
Gelu = elementwise(gelu)


def _with_unit_axes(window_shape, strides, spec):
    """Window and strides over the spatial axes, extended with 1s at the batch and
    channel axes (spec: the input layout, default N...C)."""
    if spec is None:
        fixed = (0, len(window_shape) + 1)
    else:
        fixed = (spec.index("N"), spec.index("C"))
    for i in sorted(fixed):
        window_shape = window_shape[:i] + (1,) + window_shape[i:]
        strides = strides[:i] + (1,) + strides[i:]
    return window_shape, strides


def _pooling_layer(reducer, init_val, rescaler=None):
    def PoolingLayer(window_shape, strides=None, padding="VALID", spec=None):
        """A pooling layer over the spatial axes of the input."""
        strides = strides or (1,) * len(window_shape)
        rescale = rescaler(window_shape, strides, padding) if rescaler else None
        window, full_strides = _with_unit_axes(window_shape, strides, spec)

        def init_fun(rng, input_shape):
            pads = windowing.padtype_to_pads(input_shape, window, full_strides, padding)
            unit = (1,) * len(window)
            return wr.reduce_window_shape_tuple(input_shape, window, full_strides, pads,
                                                unit, unit), ()

        def apply_fun(params, inputs, **kwargs):
            out = wr.reduce_window(inputs, init_val, reducer, window, full_strides, padding)
            return rescale(out, inputs, spec) if rescale else out
        return init_fun, apply_fun
    return PoolingLayer


def _normalize_by_window_size(dims, strides, padding):
    """Divides sums by the number of non-padding elements in each window."""
    def rescale(outputs, inputs, spec):
        fixed = (0, inputs.ndim - 1) if spec is None else (spec.index("N"), spec.index("C"))
        spatial = tuple(inputs.shape[i] for i in range(inputs.ndim) if i not in fixed)
        one = ac.ones(spatial, dtype=inputs.dtype)
        sizes = wr.reduce_window(one, 0., lax_.add, dims, strides, padding)
        for i in sorted(fixed):
            sizes = man.expand_dims(sizes, i)
        return outputs / sizes
    return rescale


MaxPool = _pooling_layer(lax_.max, -math.inf)
SumPool = _pooling_layer(lax_.add, 0.)
AvgPool = _pooling_layer(lax_.add, 0., _normalize_by_window_size)


def _flatten():
    def init_fun(rng, input_shape):
        return (input_shape[0], math.prod(input_shape[1:])), ()

    def apply_fun(params, inputs, **kwargs):
        return man.reshape(inputs, (inputs.shape[0], -1))
    return init_fun, apply_fun


Flatten = _flatten()  # flattens all but the leading (batch) axis
Identity = elementwise(lambda x: x)


def FanOut(num):
    """Copies its input to `num` outputs."""
    def init_fun(rng, input_shape):
        return [input_shape] * num, ()

    def apply_fun(params, inputs, **kwargs):
        return [inputs] * num
    return init_fun, apply_fun


def _fan_in_sum():
    def init_fun(rng, input_shape):
        return input_shape[0], ()

    def apply_fun(params, inputs, **kwargs):
        return sum(inputs)
    return init_fun, apply_fun


FanInSum = _fan_in_sum()  # sums its inputs


def FanInConcat(axis=-1):
    """Concatenates its inputs along `axis`."""
    def init_fun(rng, input_shape):
        ax = axis % len(input_shape[0])
        size = sum(shape[ax] for shape in input_shape)
        return input_shape[0][:ax] + (size,) + input_shape[0][ax + 1:], ()

    def apply_fun(params, inputs, **kwargs):
        return man.concatenate(inputs, axis)
    return init_fun, apply_fun


def Dropout(rate, mode="train"):
    """Keeps each input with probability `rate` (scaled by 1/rate) in 'train' mode; the
    identity otherwise. Needs `rng=` at apply time."""
    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.get("rng", None)
        if rng is None:
            raise ValueError(
                "Dropout layer requires apply_fun to be called with a PRNG key argument. "
                "That is, instead of `apply_fun(params, inputs)`, call it like "
                "`apply_fun(params, inputs, rng)` where `rng` is a PRNG key (e.g. from "
                "`jax.random.key`).")
        if mode != "train":
            return inputs
        keep = random.bernoulli(rng, rate, inputs.shape)
        return jnp_core.where(keep, inputs / rate, 0)
    return init_fun, apply_fun


# ----------------------------------------------------------------------------------------
# combinators
# ----------------------------------------------------------------------------------------


def _layer_rngs(kwargs, n):
    rng = kwargs.pop("rng", None)
    return random.split(rng, n) if rng is not None else (None,) * n


def serial(*layers):
    """Composes layers in sequence (each init gets its own key, split off in turn)."""
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        params = []
        for init in init_funs:
            rng, layer_rng = random.split(rng)
            input_shape, p = init(layer_rng, input_shape)
            params.append(p)
        return input_shape, params

    def apply_fun(params, inputs, **kwargs):
        rngs = _layer_rngs(kwargs, len(layers))
        for fun, p, r in zip(apply_funs, params, rngs):
            inputs = fun(p, inputs, rng=r, **kwargs)
        return inputs
    return init_fun, apply_fun


def parallel(*layers):
    """Applies layer i to input i (a sequence in, a sequence out); init returns, as
    JAX's does, an iterator over (output shapes, params)."""
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        rngs = random.split(rng, len(layers))
        return zip(*[init(r, shape) for init, r, shape in zip(init_funs, rngs, input_shape)])

    def apply_fun(params, inputs, **kwargs):
        rngs = _layer_rngs(kwargs, len(layers))
        return [f(p, x, rng=r, **kwargs)
                for f, p, x, r in zip(apply_funs, params, inputs, rngs)]
    return init_fun, apply_fun


def shape_dependent(make_layer):
    """A layer built by make_layer(input_shape) once the input shape is known."""
    def init_fun(rng, input_shape):
        return make_layer(input_shape)[0](rng, input_shape)

    def apply_fun(params, inputs, **kwargs):
        return make_layer(inputs.shape)[1](params, inputs, **kwargs)
    return init_fun, apply_fun


__all__ = [
    "AvgPool", "BatchNorm", "Conv", "Conv1DTranspose", "ConvTranspose", "Dense", "Dropout",
    "Elu", "Exp", "FanInConcat", "FanInSum", "FanOut", "Flatten", "Gelu", "GeneralConv",
    "GeneralConvTranspose", "Identity", "LeakyRelu", "LogSoftmax", "MaxPool", "Relu", "Selu",
    "Sigmoid", "Softmax", "Softplus", "SumPool", "Tanh", "elementwise", "elu", "gelu",
    "glorot", "glorot_normal", "leaky_relu", "log_softmax", "logsoftmax", "normal", "ones",
    "parallel", "randn", "relu", "selu", "serial", "shape_dependent", "sigmoid", "softmax",
    "softplus", "standardize", "zeros",
]
