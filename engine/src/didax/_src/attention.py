"""`jax.nn.dot_product_attention` (JAX's XLA implementation: grouped-query attention by
vmap over the query groups, scaled logits, bias, boolean / causal / sliding-window /
sequence-length masks, a float32 softmax) and `jax.nn.scaled_dot_general` with its
block-scale configurations (without configs it is `lax.dot_general`; with them it needs
the cuDNN `scaled_matmul` kernel, which a CPU has not — the error JAX raises on a CPU).

May import everything below the public modules (it uses vmap).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from didax._src import api, dtypes
from didax._src.lax import lax
from didax._src.lax import reductions as lax_red
from didax._src.nn import logsumexp, softmax
from didax._src.numpy import array_creation as creation
from didax._src.numpy import einsum as einsum_mod
from didax._src.numpy import lax_numpy as jnp_core
from didax._src.numpy import manipulation as manip
from didax._src.numpy import products, ufuncs


def _large_negative(dtype):
    dtype_max = min(dtypes.finfo(dtype).max, dtypes.finfo(np.float32).max)
    return creation.asarray(-0.7 * dtype_max, dtype=dtype)


def _causal_mask(T, S):
    return products.tril(creation.ones((T, S), dtype=bool))[None, None, :, :]


def _window_mask(T, S, local_window_size):
    query_pos, key_pos = creation.array(range(T)), creation.array(range(S))
    left, right = local_window_size
    left_mask = query_pos[..., None] <= key_pos[..., None, :] + left
    right_mask = query_pos[..., None] >= key_pos[..., None, :] - right
    return (right_mask & left_mask)[None, None, :, :]


def _padding_mask_logits(T, S, q_seqlen, kv_seqlen):
    q_mask = kv_mask = True
    if q_seqlen is not None:
        q_mask = creation.arange(0, T)[None, :, None] < q_seqlen[:, None, None]
    if kv_seqlen is not None:
        kv_mask = creation.arange(0, S)[None, None, :] < kv_seqlen[:, None, None]
    return ufuncs.logical_and(q_mask, kv_mask)[:, None, :, :]


def _apply_masks(logits, mask, is_causal, q_seqlen, kv_seqlen, local_window_size):
    if mask is None and not is_causal and q_seqlen is None and kv_seqlen is None and \
            local_window_size is None:
        return logits
    combined = creation.ones_like(logits, dtype=bool)
    if mask is not None:
        combined = combined & mask
    T, S = logits.shape[2], logits.shape[3]
    if is_causal:
        combined = combined & _causal_mask(T, S)
    if local_window_size is not None:
        combined = combined & _window_mask(T, S, local_window_size)
    if q_seqlen is not None or kv_seqlen is not None:
        combined = combined & _padding_mask_logits(T, S, q_seqlen, kv_seqlen)
    return jnp_core.where(combined, logits, _large_negative(logits.dtype))


def _attention_core(query, key, value, bias, mask, is_causal, scale, q_seqlen, kv_seqlen,
                    local_window_size, return_residual):
    logits_dtype = dtypes.promote_types(query.dtype, np.float32)
    logits = einsum_mod.einsum("BTNH,BSNH->BNTS", query, key,
                               preferred_element_type=logits_dtype)
    logits = logits * creation.array(scale, dtype=logits.dtype)
    if bias is not None:
        logits = (logits + bias).astype(logits.dtype)
    padded = _apply_masks(logits, mask, is_causal, q_seqlen, kv_seqlen, local_window_size)
    padded = padded.astype(np.float32)
    probs = softmax(padded, axis=-1).astype(key.dtype)
    encoded = einsum_mod.einsum("BNTS,BSNH->BTNH", probs, value)
    if q_seqlen is not None:
        q_mask = (creation.arange(0, encoded.shape[1])[None, :] < q_seqlen[:, None])
        encoded = encoded * q_mask[:, :, None, None].astype(encoded.dtype)
    if return_residual:
        lse = logsumexp(padded, axis=-1).astype(key.dtype)
        return encoded, lax.stop_gradient(manip.transpose(lse, (0, 2, 1)))
    return encoded


def _attention_xla(query, key, value, bias, mask, is_causal, scale, q_seqlen, kv_seqlen,
                   local_window_size, return_residual=False):
    B, T, N, H = query.shape
    _, S, K, _ = key.shape
    G = N // K
    query = manip.reshape(query, (B, T, K, G, H))

    def grouped(t):
        if t is None:
            return t
        tB, tN, tT, tS = t.shape
        if tN == 1:
            return manip.broadcast_to(t[:, :, None, :, :], (tB, tN, G, tT, tS))
        assert tN == N
        return manip.reshape(t, (tB, K, G, tT, tS))

    fn = api.vmap(_attention_core, in_axes=(3, None, None, 2, 2) + (None,) * 6, out_axes=3)
    out = fn(query, key, value, grouped(bias), grouped(mask), is_causal, scale, q_seqlen,
             kv_seqlen, local_window_size, return_residual)
    if return_residual:
        encoded, lse = out
        return manip.reshape(encoded, (B, T, N, H)), manip.reshape(lse, (B, T, N))
    return manip.reshape(out, (B, T, N, H))


def _ensure_4d(t):
    t = creation.asarray(t)
    return manip.expand_dims(t, tuple(range(4 - t.ndim))) if t.ndim < 4 else t


def _check(t, shape, dtype, name: str) -> None:
    if t is None:
        return
    if t.ndim != len(shape):
        raise ValueError(f"{name} ndim should be {len(shape)}, but got {t.ndim}")
    if dtype is not None and t.dtype != dtype:
        raise ValueError(f"{name} dtype should be {dtype}, but got {t.dtype}")
    for i in range(t.ndim):
        if shape[i] != -1 and t.shape[i] != shape[i]:
            raise ValueError(f"{name} shape should be {shape}: but got {t.shape}")


def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None,
                          is_causal: bool = False, query_seq_lengths=None,
                          key_value_seq_lengths=None, local_window_size=None,
                          implementation=None, return_residual: bool = False):
    """softmax(Q K^T * scale + bias, masked) V over (batch, seq, heads, head_dim) arrays
    (leading dims added when fewer than 4); grouped-query attention when Q has a
    multiple of K's heads."""
    q, k, v = _ensure_4d(query), _ensure_4d(key), _ensure_4d(value)
    bias = _ensure_4d(bias) if bias is not None else None
    mask = _ensure_4d(mask) if mask is not None else None
    if query_seq_lengths is not None:
        query_seq_lengths = creation.asarray(query_seq_lengths)
    if key_value_seq_lengths is not None:
        key_value_seq_lengths = creation.asarray(key_value_seq_lengths)
    if isinstance(local_window_size, int):
        local_window_size = (local_window_size, local_window_size)
    B, S, K, H = k.shape
    _check(v, [B, S, K, H], k.dtype, "value")
    _check(q, [B, -1, -1, H], k.dtype, "query")
    _check(mask, [-1] * 4, np.dtype(bool), "mask")
    _check(bias, [-1] * 4, None, "bias")
    _check(query_seq_lengths, [B], np.dtype("int32"), "query_seq_lengths")
    _check(key_value_seq_lengths, [B], np.dtype("int32"), "key_value_seq_lengths")
    if q.shape[-2] % K != 0:
        raise ValueError(f"The number of query heads must be a multiple of key/value "
                         f"heads, but got {q.shape[-2]} vs {K}")
    scale_val = (1.0 / np.sqrt(H)) if scale is None else scale
    if implementation == "cudnn":
        raise RuntimeError("cuDNN is not detected.")
    if implementation not in (None, "xla"):
        raise ValueError(f"Unsupported implementation option: {implementation}")
    out = _attention_xla(q, k, v, bias, mask, is_causal, scale_val, query_seq_lengths,
                         key_value_seq_lengths, local_window_size, return_residual)
    output_shape = creation.asarray(query).shape
    if return_residual:  # (back to the query's own rank)
        return (manip.reshape(out[0], output_shape),
                manip.reshape(out[1], output_shape[:-1]))
    return manip.reshape(out, output_shape)


@dataclasses.dataclass
class BlockScaleConfig:
    """How one operand of scaled_dot_general is quantized (JAX's configuration)."""

    mode: str
    block_size: int
    data_type: Any
    scale_type: Any
    global_scale: Any
    infer_only: bool


def get_scaled_dot_general_config(mode: str, global_scale=None) -> BlockScaleConfig:
    if mode == "nvfp4":
        one = creation.ones((1,), dtype=np.float32)
        return BlockScaleConfig("nvfp4", 16, dtypes.float4_e2m1fn, dtypes.float8_e4m3fn,
                                one if global_scale is None else global_scale, False)
    if mode == "mxfp8":
        return BlockScaleConfig("mxfp8", 32, dtypes.float8_e4m3fn, dtypes.float8_e8m0fnu,
                                None, False)
    raise ValueError(f"Unsupported mode: {mode}")


_NO_SCALED_MATMUL = ("MLIR translation rule for primitive 'scaled_matmul' not found for "
                     "platform cpu")


def scaled_dot_general(lhs, rhs, dimension_numbers, preferred_element_type=np.float32,
                       configs=None, implementation=None):
    """lax.dot_general with block-scaled quantized operands per `configs` (None: plain)."""
    del implementation
    if configs is None:
        return lax_red.dot_general(lhs, rhs, dimension_numbers,
                                   preferred_element_type=preferred_element_type)
    raise NotImplementedError(_NO_SCALED_MATMUL)


def scaled_matmul(lhs, rhs, lhs_scales, rhs_scales, preferred_element_type=np.float32):
    """A cuDNN block-scaled matmul: on a CPU JAX has no kernel for it, nor has didax."""
    del lhs, rhs, lhs_scales, rhs_scales, preferred_element_type
    raise NotImplementedError(_NO_SCALED_MATMUL)
