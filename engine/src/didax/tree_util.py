"""Public pytree utilities (the `jax.tree_util` API); re-exports only."""

from didax._src.missing import module_getattr as _module_getattr  # noqa: E402
from didax._src.tree_util import DictKey as DictKey
from didax._src.tree_util import FlattenedIndexKey as FlattenedIndexKey
from didax._src.tree_util import GetAttrKey as GetAttrKey
from didax._src.tree_util import KeyEntry as KeyEntry
from didax._src.tree_util import KeyPath as KeyPath
from didax._src.tree_util import Partial as Partial
from didax._src.tree_util import PyTreeDef as PyTreeDef
from didax._src.tree_util import SequenceKey as SequenceKey
from didax._src.tree_util import all_leaves as all_leaves
from didax._src.tree_util import default_registry as default_registry
from didax._src.tree_util import flatten_one_level as flatten_one_level
from didax._src.tree_util import flatten_one_level_with_keys as flatten_one_level_with_keys
from didax._src.tree_util import is_tree_node as is_tree_node
from didax._src.tree_util import keystr as keystr
from didax._src.tree_util import register_dataclass as register_dataclass
from didax._src.tree_util import register_pytree_node as register_pytree_node
from didax._src.tree_util import register_pytree_node_class as register_pytree_node_class
from didax._src.tree_util import register_pytree_with_keys as register_pytree_with_keys
from didax._src.tree_util import (
    register_pytree_with_keys_class as register_pytree_with_keys_class,
)
from didax._src.tree_util import register_static as register_static
from didax._src.tree_util import tree_all as tree_all
from didax._src.tree_util import tree_broadcast as tree_broadcast
from didax._src.tree_util import tree_flatten as tree_flatten
from didax._src.tree_util import tree_flatten_with_path as tree_flatten_with_path
from didax._src.tree_util import tree_leaves as tree_leaves
from didax._src.tree_util import tree_leaves_with_path as tree_leaves_with_path
from didax._src.tree_util import tree_map as tree_map
from didax._src.tree_util import tree_map_with_path as tree_map_with_path
from didax._src.tree_util import tree_reduce as tree_reduce
from didax._src.tree_util import tree_reduce_associative as tree_reduce_associative
from didax._src.tree_util import tree_structure as tree_structure
from didax._src.tree_util import tree_transpose as tree_transpose
from didax._src.tree_util import tree_unflatten as tree_unflatten
from didax._src.tree_util import treedef_children as treedef_children
from didax._src.tree_util import treedef_is_leaf as treedef_is_leaf
from didax._src.tree_util import treedef_tuple as treedef_tuple

# JAX's names didax lacks raise NotImplementedError saying what to use instead
__getattr__ = _module_getattr("jax.tree_util", __name__)
