"""`jax._src.lib.mlir`: MLIR's Python bindings as jaxlib ships them (`ir`, `passmanager`,
`dialects`)."""

from jaxlib.mlir import ir as ir
from jaxlib.mlir import passmanager as passmanager

from didax._src.lib.mlir import dialects as dialects
