"""didax: a from-scratch implementation of JAX's design — tracing interpreters, jaxprs,
jvp/vjp/grad, vmap, and jit compiled through XLA with jaxlib. `import didax as jax`."""

from didax import ad as ad
from didax import core as core
from didax import debug as debug
from didax import dtypes as dtypes
from didax import errors as errors
from didax import example_libraries as example_libraries
from didax import experimental as experimental
from didax import export as export
from didax import flatten_util as flatten_util
from didax import interpreters as interpreters
from didax import lax as lax
from didax import nn as nn
from didax import numpy as numpy
from didax import ops as ops
from didax import random as random
from didax import ref as ref
from didax import scipy as scipy
from didax import sharding as sharding
from didax import tree as tree
from didax import tree_util as tree_util
from didax import typing as typing
from didax._src import numpy as _numpy_impl  # noqa: F401 - installs array methods
from didax._src.ad_checkpoint import checkpoint as checkpoint
from didax._src.ad_checkpoint import checkpoint_policies as checkpoint_policies
from didax._src.ad_checkpoint import remat as remat
from didax._src.api import (
    block_until_ready as block_until_ready,
)
from didax._src.api import (
    device_get as device_get,
)
from didax._src.api import (
    device_put as device_put,
)
from didax._src.api import (
    eval_shape as eval_shape,
)
from didax._src.api import (
    grad as grad,
)
from didax._src.api import (
    hessian as hessian,
)
from didax._src.api import (
    jacfwd as jacfwd,
)
from didax._src.api import (
    jacobian as jacobian,
)
from didax._src.api import (
    jacrev as jacrev,
)
from didax._src.api import (
    jvp as jvp,
)
from didax._src.api import (
    linearize as linearize,
)
from didax._src.api import (
    make_jaxpr as make_jaxpr,
)
from didax._src.api import (
    value_and_grad as value_and_grad,
)
from didax._src.api import (
    vjp as vjp,
)
from didax._src.api import (
    vmap as vmap,
)
from didax._src.api_extras import clear_caches as clear_caches
from didax._src.api_extras import custom_gradient as custom_gradient
from didax._src.api_extras import default_backend as default_backend
from didax._src.api_extras import ensure_compile_time_eval as ensure_compile_time_eval
from didax._src.api_extras import fwd_and_bwd as fwd_and_bwd
from didax._src.api_extras import host_count as host_count
from didax._src.api_extras import host_id as host_id
from didax._src.api_extras import host_ids as host_ids
from didax._src.api_extras import linear_transpose as linear_transpose
from didax._src.api_extras import named_call as named_call
from didax._src.api_extras import named_scope as named_scope
from didax._src.api_extras import process_count as process_count
from didax._src.api_extras import process_index as process_index
from didax._src.api_extras import process_indices as process_indices
from didax._src.api_util import ShapeDtypeStruct as ShapeDtypeStruct
from didax._src.basearray import Array as Array
from didax._src.callback import pure_callback as pure_callback
from didax._src.closure_convert import closure_convert as closure_convert
from didax._src.config import (
    check_tracer_leaks as check_tracer_leaks,
)
from didax._src.config import config as config
from didax._src.config import (
    debug_infs as debug_infs,
)
from didax._src.config import (
    debug_key_reuse as debug_key_reuse,
)
from didax._src.config import (
    debug_nans as debug_nans,
)
from didax._src.config import (
    default_device as default_device,
)
from didax._src.config import (
    default_matmul_precision as default_matmul_precision,
)
from didax._src.config import (
    default_prng_impl as default_prng_impl,
)
from didax._src.config import (
    disable_jit as disable_jit,
)
from didax._src.config import (
    enable_checks as enable_checks,
)
from didax._src.config import (
    enable_custom_prng as enable_custom_prng,
)
from didax._src.config import (
    enable_x64 as enable_x64,
)
from didax._src.config import (
    explain_cache_misses as explain_cache_misses,
)
from didax._src.config import (
    legacy_prng_key as legacy_prng_key,
)
from didax._src.config import (
    log_compiles as log_compiles,
)
from didax._src.config import (
    numpy_dtype_promotion as numpy_dtype_promotion,
)
from didax._src.config import (
    numpy_rank_promotion as numpy_rank_promotion,
)
from didax._src.config import (
    threefry_partitionable as threefry_partitionable,
)
from didax._src.core import typeof as typeof
from didax._src.custom_derivatives import custom_jvp as custom_jvp
from didax._src.custom_derivatives import custom_vjp as custom_vjp
from didax._src.numpy import array_methods as _array_methods  # noqa: F401
from didax._src.pjit import effects_barrier as effects_barrier
from didax._src.pjit import jit as jit
from didax._src.pmap import device_count as device_count
from didax._src.pmap import local_device_count as local_device_count
from didax._src.pmap import local_devices as local_devices
from didax._src.pmap import pmap as pmap
from didax._src.shard_map import shard_map as shard_map
from didax._src.sharding import NamedSharding as NamedSharding
from didax._src.sharding import PartitionSpec as P
from didax._src.sharding import make_mesh as make_mesh
from didax._src.sharding import set_mesh as set_mesh
from didax._src.sharding_api import make_array_from_callback as make_array_from_callback
from didax._src.sharding_api import reshard as reshard
from didax._src.tree_util import tree_flatten as _tree_flatten  # noqa: F401
from didax._src.xla_backend import Device as Device
from didax._src.xla_backend import devices as devices
from didax.dtypes import float0 as float0
from didax.ref import Ref as Ref
from didax.ref import empty_ref as empty_ref
from didax.ref import free_ref as free_ref
from didax.ref import freeze as freeze
from didax.ref import new_ref as new_ref

__version__ = "0.1.0"

from didax._src.missing import install_module_finder as _install_module_finder  # noqa: E402

_install_module_finder()  # importing a JAX module didax lacks: NotImplementedError

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax", __name__)
