"""`jax.experimental.mesh_utils`: device meshes for `jax.sharding.Mesh`. didax's devices
are CPU devices, which JAX lays out in the order `jax.devices()` lists them (no physical
topology to follow).

May import the runtime (xla_backend).
"""

from __future__ import annotations

import collections
import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from didax._src import xla_backend

device_kind_handler_dict: dict[str, Any] = {}


def _axis_sizes(mesh_shape) -> tuple[int, ...] | None:
    try:
        return tuple(operator.index(d) for d in mesh_shape)
    except TypeError:
        return None


def create_device_mesh(mesh_shape: Sequence[int], devices: Sequence[Any] | None = None, *,
                       contiguous_submeshes: bool = False,
                       allow_split_physical_axes: bool = False) -> np.ndarray:
    """The devices (default `jax.devices()`) as an array of shape `mesh_shape`."""
    del contiguous_submeshes, allow_split_physical_axes
    devices = xla_backend.devices() if devices is None else devices
    shape = _axis_sizes(mesh_shape)
    if shape is None:
        raise ValueError("`mesh_shape` passed to `create_device_mesh` should be a sequence of "
                         f"ints. Got {mesh_shape}")
    if math.prod(shape) != len(devices):
        raise ValueError(f"Number of devices {len(devices)} must equal the product of "
                         f"mesh_shape {shape}")
    return np.asarray(devices).reshape(shape)


def create_hybrid_device_mesh(mesh_shape: Sequence[int], dcn_mesh_shape: Sequence[int],
                              devices: Sequence[Any] | None = None, *,
                              process_is_granule: bool = False,
                              should_sort_granules_by_key: bool = True,
                              allow_split_physical_axes: bool = False) -> np.ndarray:
    """A mesh of per-granule (slice or process) meshes laid out as `dcn_mesh_shape`."""
    devices = xla_backend.devices() if devices is None else devices
    attr = "process_index" if process_is_granule else "slice_index"
    if not hasattr(devices[0], attr):
        raise ValueError(f"Device {devices[0]} does not have attribute {attr}. See "
                         "`process_is_granule` option.")
    groups = collections.defaultdict(list)
    for dev in devices:
        groups[getattr(dev, attr)].append(dev)
    granules = ([groups[k] for k in sorted(groups)] if should_sort_granules_by_key
                else list(groups.values()))
    if np.prod(dcn_mesh_shape) != len(granules):
        raise ValueError(f"Number of slices {len(granules)} must equal the product of "
                         f"dcn_mesh_shape {dcn_mesh_shape}")
    meshes = [create_device_mesh(mesh_shape, g) for g in granules]
    layout = np.arange(len(granules)).reshape(dcn_mesh_shape)
    blocks = np.vectorize(lambda i: meshes[i], otypes=[object])(layout)
    return np.block(blocks.tolist())
