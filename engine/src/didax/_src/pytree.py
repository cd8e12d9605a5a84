"""Core pytree machinery: node registry, flattening and the PyTreeDef type.

This is didax's counterpart of jaxlib's compiled pytree module: key entry
classes, `PyTreeRegistry` (type -> node kind dispatch) and `PyTreeDef`.
The public API built on top of it lives in `didax._src.tree_util`.
Imports: the Python standard library only.

A treedef node is `None` for a leaf, else a tuple `(nodetype, data, children)`
where `nodetype` is a `NodeType` and `children` a tuple of nodes.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from typing import Any

# Node kinds, ordered roughly by how often flattening meets them.
_TUPLE, _LIST, _DICT, _NONE, _NAMEDTUPLE, _DATACLASS, _CUSTOM = range(7)
_MISSING = object()


# --- key path entries --------------------------------------------------------


class SequenceKey:
    """Key path entry for an element of a tuple, list or namedtuple-less sequence."""

    __slots__ = ("_idx",)
    __match_args__ = ("idx",)

    def __init__(self, idx: int):
        self._idx = _as_int(idx, "SequenceKey", "idx")

    idx = property(lambda self: self._idx)

    def __str__(self):
        return f"[{self._idx!r}]"

    def __repr__(self):
        return f"SequenceKey(idx={self._idx!r})"

    def __eq__(self, other):
        return type(other) is type(self) and other._idx == self._idx

    def __hash__(self):
        return hash((SequenceKey, self._idx))

    def __reduce__(self):
        return type(self), (self._idx,)


class DictKey:
    """Key path entry for a value of a dict-like node."""

    __slots__ = ("_key",)
    __match_args__ = ("key",)

    def __init__(self, key: Any):
        self._key = key

    key = property(lambda self: self._key)

    def __str__(self):
        return f"[{self._key!r}]"

    def __repr__(self):
        return f"DictKey(key={self._key!r})"

    def __eq__(self, other):
        return type(other) is type(self) and other._key == self._key

    def __hash__(self):
        return hash(self._key)

    def __reduce__(self):
        return type(self), (self._key,)


class GetAttrKey:
    """Key path entry for an attribute (namedtuple or dataclass field)."""

    __slots__ = ("_name",)
    __match_args__ = ("name",)

    def __init__(self, name: str):
        if not isinstance(name, str):
            raise TypeError(f"GetAttrKey(name) expects a str, got {type(name).__name__}")
        self._name = name

    name = property(lambda self: self._name)

    def __str__(self):
        return f".{self._name}"

    def __repr__(self):
        return f"GetAttrKey(name={self._name!r})"

    def __eq__(self, other):
        return type(other) is type(self) and other._name == self._name

    def __hash__(self):
        return hash(self._name)

    def __reduce__(self):
        return type(self), (self._name,)


class FlattenedIndexKey:
    """Key path entry for the i-th child of a custom node registered without keys."""

    __slots__ = ("_key",)
    __match_args__ = ("key",)

    def __init__(self, key: int):
        self._key = _as_int(key, "FlattenedIndexKey", "key")

    key = property(lambda self: self._key)

    def __str__(self):
        return f"[<flat index {self._key}>]"

    def __repr__(self):
        return f"FlattenedIndexKey(key={self._key!r})"

    def __eq__(self, other):
        return type(other) is type(self) and other._key == self._key

    def __hash__(self):
        return hash((FlattenedIndexKey, self._key))

    def __reduce__(self):
        return type(self), (self._key,)


def _as_int(value: Any, cls: str, arg: str) -> int:
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{cls}({arg}) expects an int, got {type(value).__name__}") from None


# --- node types and registry -------------------------------------------------


class NodeType:
    """How one Python type is taken apart into children and put back together."""

    __slots__ = ("kind", "type", "flatten", "unflatten", "flatten_with_keys",
                 "data_fields", "meta_fields")

    def __init__(self, kind, typ, flatten=None, unflatten=None, flatten_with_keys=None,
                 data_fields=(), meta_fields=()):
        self.kind = kind
        self.type = typ
        self.flatten = flatten
        self.unflatten = unflatten
        self.flatten_with_keys = flatten_with_keys
        self.data_fields = tuple(data_fields)
        self.meta_fields = tuple(meta_fields)

    def __repr__(self):
        return f"NodeType({self.kind}, {self.type.__name__})"


def custom_node_type(typ: type, flatten: Callable, unflatten: Callable,
                     flatten_with_keys: Callable | None = None) -> NodeType:
    return NodeType(_CUSTOM, typ, flatten, unflatten, flatten_with_keys)


def dataclass_node_type(typ: type, data_fields: Iterable[str],
                        meta_fields: Iterable[str]) -> NodeType:
    return NodeType(_DATACLASS, typ, data_fields=data_fields, meta_fields=meta_fields)


_BUILTIN_NODES = {
    tuple: NodeType(_TUPLE, tuple),
    list: NodeType(_LIST, list),
    dict: NodeType(_DICT, dict),
    type(None): NodeType(_NONE, type(None)),
}
# Namedtuple node types are shared by all registries so their treedefs compare equal.
_namedtuple_nodes: dict[type, NodeType] = {}


def _is_namedtuple_type(typ: type) -> bool:
    return issubclass(typ, tuple) and hasattr(typ, "_fields")


class PyTreeRegistry:
    """Maps Python types to node types; unknown non-namedtuple types are leaves."""

    __slots__ = ("_registered", "_lookup", "_flatten_node", "enable_none", "__weakref__")

    def __init__(self, enable_none: bool = True):
        self.enable_none = enable_none
        self._registered = {t: n for t, n in _BUILTIN_NODES.items()
                            if enable_none or t is not type(None)}
        # Cache of every type seen so far: registered ones plus leaves (None) and
        # namedtuples, so that flattening costs one dict lookup per object.
        self._lookup: dict[type, NodeType | None] = dict(self._registered)
        self._flatten_node = _make_flattener(self._lookup.get, self._classify)

    def _classify(self, typ: type) -> NodeType | None:
        node = self._registered.get(typ)
        if node is None and _is_namedtuple_type(typ):
            node = _namedtuple_nodes.get(typ)
            if node is None:
                node = _namedtuple_nodes[typ] = NodeType(_NAMEDTUPLE, typ)
        self._lookup[typ] = node
        return node

    def lookup(self, typ: type) -> NodeType | None:
        node = self._lookup.get(typ, _MISSING)
        return self._classify(typ) if node is _MISSING else node

    def register(self, node: NodeType) -> None:
        if node.type in self._registered:
            what = "dataclass " if node.kind == _DATACLASS else ""
            raise ValueError(
                f"Duplicate custom {what}PyTreeDef type registration for {node.type}.")
        self._registered[node.type] = node
        self._lookup[node.type] = node

    def is_node(self, typ: type) -> bool:
        return self.lookup(typ) is not None

    def flatten(self, tree: Any, is_leaf: Callable[[Any], bool] | None = None,
                ) -> tuple[list[Any], PyTreeDef]:
        leaves: list[Any] = []
        if is_leaf is None:
            node = self.lookup(type(tree))
            if node is None:
                return [tree], _LEAF_TREEDEF
            node = self._flatten_node(tree, node, leaves)
        else:
            node = _flatten_is_leaf(tree, leaves, self, is_leaf)
        return leaves, PyTreeDef(node, len(leaves))

    def flatten_with_path(self, tree: Any, is_leaf: Callable[[Any, Any], bool] | None = None,
                          ) -> tuple[list[tuple[tuple, Any]], PyTreeDef]:
        pairs: list[tuple[tuple, Any]] = []
        node = _flatten_with_path(tree, (), pairs, self, is_leaf)
        return pairs, PyTreeDef(node, len(pairs))

    def flatten_one_level(self, tree: Any) -> tuple[Iterable[Any], Any] | None:
        node = self.lookup(type(tree))
        if node is None:
            return None
        children, data = _children_and_data(node, tree)
        if node.kind == _NAMEDTUPLE:
            return list(children), node.type
        return (tuple(children) if node.kind == _DICT else children), data

    def flatten_one_level_with_keys(self, tree: Any) -> tuple[list, Any] | None:
        node = self.lookup(type(tree))
        if node is None:
            return None
        keys, children, data = _keyed_children(node, tree)
        pairs = list(zip(keys, children))
        if node.kind == _NAMEDTUPLE:
            return pairs, node.type
        return (tuple(pairs) if node.kind <= _NONE else pairs), data


# --- flattening --------------------------------------------------------------


def _sorted_keys(d: dict) -> tuple:
    try:
        return tuple(sorted(d))
    except Exception:
        raise ValueError(
            "Comparator raised exception while sorting pytree dictionary keys.") from None


def _custom_flatten(node: NodeType, x: Any) -> tuple[Any, Any]:
    out = node.flatten(x)
    if type(out) is not tuple or len(out) != 2:
        raise ValueError("The to_iterable function for a custom PyTree node should "
                         f"return a (children, aux_data) tuple, got {out!r}")
    try:
        iter(out[0])
    except TypeError:
        raise ValueError(
            "The to_iterable function for a custom PyTree node should return a "
            f"(children, aux_data) tuple where 'children' is iterable, got {out!r}") from None
    return out


def _children_and_data(node: NodeType, x: Any) -> tuple[Iterable[Any], Any]:
    kind = node.kind
    if kind <= _LIST or kind == _NAMEDTUPLE:
        return x, None
    if kind == _DICT:
        keys = _sorted_keys(x)
        return [x[k] for k in keys], keys
    if kind == _NONE:
        return (), None
    if kind == _DATACLASS:
        return ([getattr(x, f) for f in node.data_fields],
                tuple([getattr(x, f) for f in node.meta_fields]))
    return _custom_flatten(node, x)


def _make_flattener(get: Callable, classify: Callable) -> Callable:
    """Builds the no-is_leaf flattening recursion over one registry's type cache.

    This is the hot path of every transformation, hence the closure (cheaper
    than passing the cache around) and the inlined handling of leaf children.
    """
    def flatten_node(x: Any, node: NodeType, leaves: list) -> tuple:
        kind = node.kind
        if kind <= _LIST:
            children, data = x, None
        elif kind == _DICT:
            data = _sorted_keys(x)
            children = map(x.__getitem__, data)
        else:
            children, data = _children_and_data(node, x)
        subs = []
        for c in children:
            sub = get(type(c), _MISSING)
            if sub is _MISSING:
                sub = classify(type(c))
            if sub is None:
                leaves.append(c)
                subs.append(None)
            else:
                subs.append(flatten_node(c, sub, leaves))
        return (node, data, tuple(subs))

    return flatten_node


def _check_is_leaf(result: Any) -> bool:
    if result is True:
        return True
    if result is False or result is None:
        return False
    raise ValueError(
        f"is_leaf predicate returned a non-boolean value {result!r}; expected a boolean")


def _flatten_is_leaf(x: Any, leaves: list, registry: PyTreeRegistry, is_leaf: Callable):
    node = None if _check_is_leaf(is_leaf(x)) else registry.lookup(type(x))
    if node is None:
        leaves.append(x)
        return None
    children, data = _children_and_data(node, x)
    subs = tuple([_flatten_is_leaf(c, leaves, registry, is_leaf) for c in children])
    return (node, data, subs)


def _keyed_children(node: NodeType, x: Any) -> tuple[list, list, Any]:
    """Returns (keys, children, data) for a node value."""
    kind = node.kind
    if kind == _CUSTOM and node.flatten_with_keys is not None:
        pairs, data = node.flatten_with_keys(x)
        pairs = list(pairs)
        return [k for k, _ in pairs], [c for _, c in pairs], data
    children, data = _children_and_data(node, x)
    children = list(children)
    if kind <= _LIST:
        keys = [SequenceKey(i) for i in range(len(children))]
    elif kind == _DICT:
        keys = [DictKey(k) for k in data]
    elif kind == _NAMEDTUPLE:
        keys = [GetAttrKey(f) for f in x._fields]
    elif kind == _DATACLASS:
        keys = [GetAttrKey(f) for f in node.data_fields]
    else:
        keys = [FlattenedIndexKey(i) for i in range(len(children))]
    return keys, children, data


def _flatten_with_path(x: Any, path: tuple, pairs: list, registry: PyTreeRegistry,
                       is_leaf: Callable | None):
    if is_leaf is not None and _check_is_leaf(is_leaf(path, x)):
        node = None
    else:
        node = registry.lookup(type(x))
    if node is None:
        pairs.append((path, x))
        return None
    keys, children, data = _keyed_children(node, x)
    subs = tuple([_flatten_with_path(c, (*path, k), pairs, registry, is_leaf)
                  for k, c in zip(keys, children)])
    return (node, data, subs)


def all_leaves(registry: PyTreeRegistry, iterable: Iterable[Any]) -> bool:
    lookup = registry.lookup
    return all(lookup(type(x)) is None for x in iterable)


# --- PyTreeDef ---------------------------------------------------------------


class PyTreeDef:
    """The structure of a pytree: its nodes without the leaves. Immutable, hashable."""

    __slots__ = ("_node", "_num_leaves", "_hash", "__weakref__")

    def __init__(self, node: Any, num_leaves: int | None = None):
        self._node = node
        self._num_leaves = _count_leaves(node) if num_leaves is None else num_leaves
        self._hash = None

    @property
    def num_leaves(self) -> int:
        return self._num_leaves

    @property
    def num_nodes(self) -> int:
        return _count_nodes(self._node)

    def children(self) -> list[PyTreeDef]:
        node = self._node
        return [] if node is None else [PyTreeDef(c) for c in node[2]]

    def node_data(self) -> tuple[type, Any] | None:
        node = self._node
        if node is None:
            return None
        nodetype, data, _ = node
        return nodetype.type, (list(data) if nodetype.kind == _DICT else data)

    def unflatten(self, leaves: Iterable[Any]) -> Any:
        if type(leaves) is not list:
            leaves = list(leaves)
        n = self._num_leaves
        if len(leaves) != n:
            if len(leaves) < n:
                raise ValueError(
                    f"Too few leaves for PyTreeDef; expected {n}, got {len(leaves)}")
            raise ValueError(f"Too many leaves for PyTreeDef; expected {n}.")
        if self._node is None:
            return leaves[0]
        return _build(self._node, iter(leaves))

    def flatten_up_to(self, tree: Any) -> list[Any]:
        if self._node is None:
            return [tree]
        out: list[Any] = []
        _flatten_up_to(self._node, tree, out)
        out.reverse()
        return out

    def walk(self, f_node: Callable[[tuple, Any], Any], f_leaf: Callable[[Any], Any] | None,
             leaves: Iterable[Any]) -> Any:
        """Folds the tree bottom-up: f_node(children_results, node_data) at each node."""
        it = iter(leaves)
        out = _walk(self._node, f_node, f_leaf, it)
        if next(it, _MISSING) is not _MISSING:
            raise ValueError("Too many leaves for PyTreeDef")
        return out

    def compose(self, inner: PyTreeDef) -> PyTreeDef:
        return PyTreeDef(_compose(self._node, inner._node),
                         self._num_leaves * inner._num_leaves)

    @staticmethod
    def from_node_data_and_children(registry: PyTreeRegistry, node_data: Any,
                                    children: Iterable[PyTreeDef]) -> PyTreeDef:
        if node_data is None:
            return _LEAF_TREEDEF
        typ, data = node_data
        nodetype = registry.lookup(typ)
        if nodetype is None:
            raise RuntimeError(f"Could not find type: {typ}.")
        subs = tuple(c._node for c in children)
        if nodetype.kind == _DICT:
            data = tuple(data)
            if len(data) != len(subs):
                raise RuntimeError("Number of keys and entries does not match.")
        return PyTreeDef((nodetype, data, subs))

    def __eq__(self, other: object) -> bool:
        if type(other) is not PyTreeDef:
            return False
        return self is other or self._node == other._node

    def __hash__(self) -> int:
        if self._hash is None:
            try:
                self._hash = hash(self._node)
            except TypeError:  # unhashable custom node data: hash the shape only
                self._hash = hash(_shape(self._node))
        return self._hash

    def __repr__(self) -> str:
        return f"PyTreeDef({_node_str(self._node)})"

    def __reduce__(self):
        return _treedef_from_spec, (_spec(self._node),)


def treedef_tuple(treedefs: Iterable[PyTreeDef]) -> PyTreeDef:
    treedefs = list(treedefs)
    for t in treedefs:
        if type(t) is not PyTreeDef:
            raise TypeError(f"treedef_tuple expects PyTreeDefs, got {type(t).__name__}")
    node = (_BUILTIN_NODES[tuple], None, tuple(t._node for t in treedefs))
    return PyTreeDef(node, sum(t._num_leaves for t in treedefs))


_LEAF_TREEDEF = PyTreeDef(None, 1)


def _count_leaves(node: Any) -> int:
    return 1 if node is None else sum(map(_count_leaves, node[2]))


def _count_nodes(node: Any) -> int:
    return 1 if node is None else 1 + sum(map(_count_nodes, node[2]))


def _shape(node: Any) -> Any:
    if node is None:
        return None
    nodetype, data, children = node
    return (nodetype.type, data if nodetype.kind == _DICT else len(children),
            tuple(map(_shape, children)))


def _compose(node: Any, inner: Any) -> Any:
    if node is None:
        return inner
    nodetype, data, children = node
    return (nodetype, data, tuple([_compose(c, inner) for c in children]))


def _walk(node: Any, f_node: Callable, f_leaf: Callable | None, it: Any) -> Any:
    if node is None:
        leaf = next(it, _MISSING)
        if leaf is _MISSING:
            raise ValueError("Too few leaves for PyTreeDef")
        return leaf if f_leaf is None else f_leaf(leaf)
    nodetype, data, children = node
    results = tuple([_walk(c, f_node, f_leaf, it) for c in children])
    if nodetype.kind == _DICT:
        data = list(data)
    elif nodetype.kind == _NAMEDTUPLE:
        data = nodetype.type
    return f_node(results, data)


def _build(node: Any, it: Any) -> Any:
    nodetype, data, children = node
    vals = []
    for c in children:  # a plain loop: cheaper than a comprehension on Python 3.11
        vals.append(next(it) if c is None else _build(c, it))
    kind = nodetype.kind
    if kind == _TUPLE:
        return tuple(vals)
    if kind == _LIST:
        return vals
    if kind == _DICT:
        return dict(zip(data, vals))
    if kind == _NONE:
        return None
    if kind == _NAMEDTUPLE:
        return nodetype.type(*vals)
    if kind == _DATACLASS:
        kwargs = dict(zip(nodetype.meta_fields, data))
        kwargs.update(zip(nodetype.data_fields, vals))
        return nodetype.type(**kwargs)
    return nodetype.unflatten(data, tuple(vals))


def _flatten_up_to(node: Any, x: Any, out: list) -> None:
    """Appends the subtrees of `x` at the leaves of `node` to `out`, in reverse order.

    Children are visited last to first, as jaxlib does, so that when several
    subtrees mismatch the same one is reported.
    """
    nodetype, data, children = node
    kind, typ = nodetype.kind, type(x)
    if kind <= _LIST and typ is nodetype.type and len(x) == len(children):
        vals = x  # fast paths for the common cases; _match_node has the errors
    elif kind == _DICT and typ is dict and len(x) == len(data) and _sorted_keys(x) == data:
        vals = [x[k] for k in data]
    else:
        vals = _match_node(nodetype, data, len(children), x)
    for c, v in zip(reversed(children), reversed(vals)):
        if c is None:
            out.append(v)
        else:
            _flatten_up_to(c, v, out)


def _match_sequence(name: str, typ: type, n: int, x: Any) -> Any:
    if type(x) is not typ:
        raise ValueError(f"Expected {name}, got {x!r}.")
    if len(x) != n:
        raise ValueError(f"{name.capitalize()} arity mismatch: {len(x)} != {n}; {name}: {x!r}.")
    return x


def _match_dict(data: tuple, x: Any) -> list:
    if type(x) is not dict:
        raise ValueError(f"Expected dict, got {x!r}.")
    keys = _sorted_keys(x)
    if keys != data:
        raise ValueError(f"Dict key mismatch; expected keys: {list(data)!r}; "
                         f"present keys: {list(keys)!r}.")
    return [x[k] for k in keys]


_NONE_HINT = (
    "\n\nIn previous releases of JAX, flatten-up-to used to consider None to be a "
    "tree-prefix of non-None values. To obtain the previous behavior, you can usually "
    "write:\n  jax.tree.map(lambda x, y: None if x is None else f(x, y), a, b, "
    "is_leaf=lambda x: x is None)")


def _match_namedtuple(nodetype: NodeType, n: int, x: Any) -> Any:
    if type(x) is not nodetype.type:
        if isinstance(x, tuple) and hasattr(x, "_fields"):
            raise ValueError(f"Named tuple type mismatch: expected type: {nodetype.type!r}, "
                             f"tuple: {x!r}.")
        raise ValueError(f"Expected named tuple, got {x!r}.")
    if len(x) != n:
        raise ValueError(f"Named tuple arity mismatch: {len(x)} != {n}; tuple: {x!r}.")
    return x


def _match_custom(nodetype: NodeType, data: Any, n: int, x: Any) -> Any:
    what = "custom dataclass node" if nodetype.kind == _DATACLASS else "custom node"
    if type(x) is not nodetype.type:
        raise ValueError(f"{what.capitalize()} type mismatch: expected type: "
                         f"{nodetype.type!r}, value: {x!r}.")
    children, actual = _children_and_data(nodetype, x)
    if not data == actual:
        raise ValueError(f"Mismatch {what} data: {data!r} != {actual!r}; value: {x!r}.")
    children = list(children)
    if len(children) != n:
        raise ValueError(f"Custom type arity mismatch: {len(children)} != {n}; value: {x!r}.")
    return children


def _match_node(nodetype: NodeType, data: Any, n: int, x: Any) -> Any:
    """Checks that `x` matches one treedef node and returns its children."""
    kind = nodetype.kind
    if kind == _TUPLE:
        return _match_sequence("tuple", tuple, n, x)
    if kind == _LIST:
        return _match_sequence("list", list, n, x)
    if kind == _DICT:
        return _match_dict(data, x)
    if kind == _NONE:
        if x is not None:
            raise ValueError(f"Expected None, got {x!r}.{_NONE_HINT}")
        return ()
    if kind == _NAMEDTUPLE:
        return _match_namedtuple(nodetype, n, x)
    return _match_custom(nodetype, data, n, x)


def _node_str(node: Any) -> str:
    if node is None:
        return "*"
    nodetype, data, children = node
    parts = [_node_str(c) for c in children]
    kind = nodetype.kind
    if kind == _TUPLE:
        return f"({', '.join(parts)}{',' if len(parts) == 1 else ''})"
    if kind == _LIST:
        return f"[{', '.join(parts)}]"
    if kind == _DICT:
        return "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(data, parts)) + "}"
    if kind == _NONE:
        return "None"
    name = nodetype.type.__name__
    label = f"namedtuple[{name}]" if kind == _NAMEDTUPLE else f"{name}[{data}]"
    return f"CustomNode({label}, [{', '.join(parts)}])"


def _spec(node: Any) -> Any:
    """A picklable description of a node: types instead of registry entries."""
    if node is None:
        return None
    nodetype, data, children = node
    return (nodetype.type, data, tuple(map(_spec, children)))


def _node_from_spec(spec: Any) -> Any:
    if spec is None:
        return None
    typ, data, children = spec
    nodetype = default_registry.lookup(typ)
    if nodetype is None:
        raise ValueError(f"Cannot unpickle PyTreeDef: {typ} is not a registered pytree node.")
    return (nodetype, data, tuple(map(_node_from_spec, children)))


def _treedef_from_spec(spec: Any) -> PyTreeDef:
    return PyTreeDef(_node_from_spec(spec))


default_registry = PyTreeRegistry()
none_leaf_registry = PyTreeRegistry(enable_none=False)
all_registries = (default_registry, none_leaf_registry)
