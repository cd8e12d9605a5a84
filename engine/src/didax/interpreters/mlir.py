"""`jax.interpreters.mlir`: registering lowering rules written with MLIR's Python bindings,
and the helpers they use; re-exports."""

from jaxlib.mlir import ir as ir

from didax._src.interpreters import lowering as _lowering_table
from didax._src.interpreters.mlir import LoweringRuleContext as LoweringRuleContext
from didax._src.interpreters.mlir import ModuleContext as ModuleContext
from didax._src.interpreters.mlir import aval_to_ir_type as aval_to_ir_type
from didax._src.interpreters.mlir import aval_to_ir_types as aval_to_ir_types
from didax._src.interpreters.mlir import broadcast_in_dim as broadcast_in_dim
from didax._src.interpreters.mlir import convert_hlo as convert_hlo
from didax._src.interpreters.mlir import dense_bool_array as dense_bool_array
from didax._src.interpreters.mlir import dense_int_array as dense_int_array
from didax._src.interpreters.mlir import dense_int_elements as dense_int_elements
from didax._src.interpreters.mlir import dtype_to_ir_type as dtype_to_ir_type
from didax._src.interpreters.mlir import flatten_ir_values as flatten_ir_values
from didax._src.interpreters.mlir import i32_attr as i32_attr
from didax._src.interpreters.mlir import i64_attr as i64_attr
from didax._src.interpreters.mlir import ir_constant as ir_constant
from didax._src.interpreters.mlir import ir_constants as ir_constants
from didax._src.interpreters.mlir import lower_fun as lower_fun
from didax._src.interpreters.mlir import make_ir_context as make_ir_context
from didax._src.interpreters.mlir import module_to_string as module_to_string
from didax._src.interpreters.mlir import register_lowering as register_lowering
from didax._src.interpreters.mlir import shape_tensor as shape_tensor
from didax._src.interpreters.mlir import token_type as token_type

Value = ir.Value
_lowerings = _lowering_table.lowerings

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.interpreters.mlir", __name__)
