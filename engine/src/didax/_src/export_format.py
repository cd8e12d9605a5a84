"""The didax export format: `Exported.serialize(vjp_order=k)` / `deserialize(blob)`.

A blob is a fixed 16-byte preamble (magic `DIDAXEXP`, format version, header length), a
UTF-8 JSON header describing k+1 functions — the primal and k levels of VJP, each with its
name, pytrees, avals, platforms and calling convention — and a payload of StableHLO portable
artifacts, one per function, located by offset/length and checked by SHA-256. The full
specification is engine/docs/export-format.md; change it together with this module and bump
FORMAT_VERSION on any incompatible change.

Also the registry of custom pytree node types that may appear in `in_tree`/`out_tree`
(`register_pytree_node_serialization`, `register_namedtuple_serialization`).
May import export, tree_util, dtypes, xla_backend.
"""

from __future__ import annotations

import base64
import collections
import hashlib
import json
import struct
from collections.abc import Callable
from typing import Any

import numpy as np

from didax._src import core, dtypes
from didax._src.export import (
    DisabledSafetyCheck,
    Exported,
    maximum_supported_calling_convention_version,
    minimum_supported_calling_convention_version,
    stablehlo_target,
)
from didax._src.tree_util import PyTreeDef, default_registry, tree_structure

MAGIC = b"DIDAXEXP"
FORMAT_VERSION = 1
_PREAMBLE = struct.Struct("<8sHHI")  # magic, format version, flags (0), header length

# --- custom pytree nodes --------------------------------------------------------------

# type -> (serialized_name, serialize_auxdata); serialized_name -> (type, deserialize, build)
_ser_registry: dict[type, tuple[str, Callable]] = {}
_deser_registry: dict[str, tuple[type, Callable, Callable]] = {}


def register_pytree_node_serialization(nodetype: type, *, serialized_name: str,
                                       serialize_auxdata: Callable[[Any], bytes],
                                       deserialize_auxdata: Callable[[bytes], Any],
                                       from_children: Callable | None = None) -> type:
    """Lets trees containing `nodetype` nodes be serialized: the node's auxdata goes
    through serialize_auxdata/deserialize_auxdata, and from_children(aux, children)
    rebuilds a node (default: the unflatten function of its pytree registration)."""
    if nodetype in _ser_registry:
        raise ValueError(f"Duplicate serialization registration for type `{nodetype}`. "
                         "Previous registration was with serialized_name "
                         f"`{_ser_registry[nodetype][0]}`.")
    if serialized_name in _deser_registry:
        raise ValueError("Duplicate serialization registration for serialized_name "
                         f"`{serialized_name}`. Previous registration was for type "
                         f"`{_deser_registry[serialized_name][0]}`.")
    if from_children is None:
        node = default_registry.lookup(nodetype)
        if node is None or node.unflatten is None:
            raise ValueError("If `from_children` is not present, you must call first "
                             f"`jax.tree_util.register_pytree_node` for `{nodetype}`")
        from_children = node.unflatten
    _ser_registry[nodetype] = (serialized_name, serialize_auxdata)
    _deser_registry[serialized_name] = (nodetype, deserialize_auxdata, from_children)
    return nodetype


def register_namedtuple_serialization(nodetype: type, *, serialized_name: str) -> type:
    """Lets a namedtuple type appear in serialized trees (its field names are stored and
    must match on deserialization)."""
    if not (issubclass(nodetype, tuple) and hasattr(nodetype, "_fields")):
        raise ValueError("Use `jax.export.register_pytree_node_serialization` for types "
                         "other than `collections.namedtuple`.")

    def from_children(fields, children):
        return nodetype(**dict(zip(fields, children)))

    return register_pytree_node_serialization(
        nodetype, serialized_name=serialized_name,
        serialize_auxdata=lambda _: json.dumps(list(nodetype._fields)).encode(),
        deserialize_auxdata=lambda b: json.loads(b.decode()),
        from_children=from_children)


register_pytree_node_serialization(
    collections.OrderedDict, serialized_name="collections.OrderedDict",
    serialize_auxdata=lambda keys: json.dumps(_str_keys(keys)).encode(),
    deserialize_auxdata=lambda b: json.loads(b.decode()))


def _str_keys(keys) -> list[str]:
    if not all(isinstance(k, str) for k in keys):
        raise TypeError("Serialization is supported only for OrderedDict with string keys. "
                        f"Found keys {keys}.")
    return list(keys)


# --- trees --------------------------------------------------------------------------


def tree_to_json(t: PyTreeDef) -> dict:
    data = t.node_data()
    kids = [tree_to_json(c) for c in t.children()]
    if data is None:
        return {"kind": "leaf"}
    typ, aux = data
    if typ is type(None):
        return {"kind": "none"}
    if typ in (tuple, list):
        return {"kind": typ.__name__, "children": kids}
    if typ is dict:
        bad = [k for k in aux if not isinstance(k, str)]
        if bad:
            raise TypeError("Serialization is supported only for dictionaries with string "
                            f"keys. Found key {bad[0]} of type {type(bad[0])}.")
        return {"kind": "dict", "keys": list(aux), "children": kids}
    if typ in _ser_registry:
        name, ser = _ser_registry[typ]
        blob = ser(aux)
        if not isinstance(blob, (bytes, bytearray)):
            raise ValueError("The custom serialization function for `node_type` must return "
                             f"a `bytes` object. It returned a {type(blob)}.")
        return {"kind": "custom", "name": name,
                "auxdata": base64.b64encode(bytes(blob)).decode(), "children": kids}
    raise ValueError(f"Cannot serialize PyTreeDef containing an unregistered type `{typ}`. "
                     "Use `export.register_pytree_node_serialization` or "
                     "`export.register_namedtuple_serialization`.")


def tree_from_json(d: dict) -> PyTreeDef:
    return tree_structure(_build_tree(d))


def _build_tree(d: dict):
    """A pytree of the described structure with 0.0 leaves."""
    kind = d["kind"]
    kids = [_build_tree(c) for c in d.get("children", ())]
    if kind == "leaf":
        return 0.0
    if kind == "none":
        return None
    if kind == "tuple":
        return tuple(kids)
    if kind == "list":
        return kids
    if kind == "dict":
        return dict(zip(d["keys"], kids))
    if kind == "custom":
        name = d["name"]
        if name not in _deser_registry:
            raise ValueError(f"Cannot deserialize a PyTreeDef containing an unregistered type "
                             f"`{name}`. Use `export.register_pytree_node_serialization` or "
                             "`export.register_namedtuple_serialization`.")
        _, deser, build = _deser_registry[name]
        return build(deser(base64.b64decode(d["auxdata"])), kids)
    raise ValueError(f"Cannot deserialize PyTreeDef with unknown kind: {kind}")


# --- avals, shardings, checks -----------------------------------------------------------


def aval_to_json(a) -> dict:
    dt = a.dtype
    if isinstance(dt, dtypes.ExtendedDType):
        raise NotImplementedError(f"serializing values of extended dtype {dt} (e.g. typed "
                                  "PRNG keys) is not supported; pass key data instead")
    name = "float0" if dt == dtypes.float0 else np.dtype(dt).name
    return {"shape": [int(d) for d in a.shape], "dtype": name, "weak_type": bool(a.weak_type)}


def aval_from_json(d: dict) -> core.ShapedArray:
    name = d["dtype"]
    dt = dtypes.float0 if name == "float0" else _dtype_named(name)
    # (never weak, as JAX's format keeps no weak types: a deserialized Exported's results
    # are strongly typed)
    return core.ShapedArray(tuple(d["shape"]), dt, False)


def _dtype_named(name: str) -> np.dtype:
    try:
        return np.dtype(name)
    except TypeError:
        import ml_dtypes  # noqa: PLC0415

        return np.dtype(getattr(ml_dtypes, name))


def sharding_to_json(s) -> str | None:
    return None if s is None else base64.b64encode(s.to_proto().SerializeToString()).decode()


def sharding_from_json(s: str | None):
    if s is None:
        return None
    from didax._src import xla_backend  # noqa: PLC0415

    xc = xla_backend.xc()
    proto = xc.OpSharding()
    proto.ParseFromString(base64.b64decode(s))
    return xc.HloSharding.from_proto(proto)


def effect_to_json(eff) -> str:
    raise NotImplementedError(f"serializing effect {eff}: exported modules with effects are "
                              "not supported")


# --- whole Exported ---------------------------------------------------------------------


def serialize(exp: Exported, vjp_order: int = 0) -> bytearray:
    """The blob holding exp and vjp_order levels of its VJP (see the module docstring)."""
    if not isinstance(vjp_order, int) or vjp_order < 0:
        raise ValueError(f"vjp_order must be a non-negative int, got {vjp_order!r}")
    levels = [exp]
    for _ in range(vjp_order):
        levels.append(levels[-1].vjp())
    payload = bytearray()
    functions = []
    for e in levels:
        module = e.mlir_module_serialized
        functions.append(_function_header(e, len(payload), module))
        payload += module
    header = {"format": "didax.export", "format_version": FORMAT_VERSION,
              "producer": _producer(), "stablehlo_target": stablehlo_target(),
              "vjp_order": vjp_order, "functions": functions}
    head = json.dumps(header, sort_keys=True, separators=(",", ":")).encode()
    out = bytearray(_PREAMBLE.pack(MAGIC, FORMAT_VERSION, 0, len(head)))
    return out + head + payload


def _function_header(e: Exported, offset: int, module: bytes) -> dict:
    return {
        "fun_name": e.fun_name,
        "in_tree": tree_to_json(e.in_tree), "out_tree": tree_to_json(e.out_tree),
        "in_avals": [aval_to_json(a) for a in e.in_avals],
        "out_avals": [aval_to_json(a) for a in e.out_avals],
        "in_shardings_hlo": [sharding_to_json(s) for s in e.in_shardings_hlo],
        "out_shardings_hlo": [sharding_to_json(s) for s in e.out_shardings_hlo],
        "nr_devices": e.nr_devices, "platforms": list(e.platforms),
        "ordered_effects": [effect_to_json(x) for x in e.ordered_effects],
        "unordered_effects": [effect_to_json(x) for x in e.unordered_effects],
        "disabled_safety_checks": [str(c) for c in e.disabled_safety_checks],
        "calling_convention_version": e.calling_convention_version,
        "module_kept_var_idx": list(e.module_kept_var_idx),
        "uses_global_constants": e.uses_global_constants,
        "module": {"offset": offset, "length": len(module),
                   "sha256": hashlib.sha256(module).hexdigest()},
    }


def _producer() -> str:
    from importlib import metadata  # noqa: PLC0415

    try:
        return f"didax {metadata.version('didax')}"
    except metadata.PackageNotFoundError:
        return "didax"


def deserialize(blob: bytes | bytearray) -> Exported:
    """The primal Exported of a blob; its `.vjp()` chain ends after the saved order."""
    header, payload = _split(bytes(blob))
    functions = header["functions"]
    exported: Exported | None = None
    for spec in reversed(functions):  # build the last VJP first: each links to the next
        exported = _exported_from(spec, payload, exported)
    assert exported is not None
    return exported


def _split(blob: bytes) -> tuple[dict, bytes]:
    if len(blob) < _PREAMBLE.size or blob[:len(MAGIC)] != MAGIC:
        raise ValueError("Not a didax serialized Exported (bad magic bytes)")
    _, version, _, head_len = _PREAMBLE.unpack_from(blob)
    if version > FORMAT_VERSION or version < 1:
        raise ValueError(f"Unsupported didax export format version {version}; this didax "
                         f"reads versions 1..{FORMAT_VERSION}")
    start = _PREAMBLE.size
    try:
        header = json.loads(blob[start:start + head_len].decode())
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"Corrupt didax export header: {e}") from None
    if header.get("format") != "didax.export" or not header.get("functions"):
        raise ValueError("Corrupt didax export header")
    return header, blob[start + head_len:]


def _exported_from(spec: dict, payload: bytes, vjp: Exported | None) -> Exported:
    m = spec["module"]
    module = payload[m["offset"]:m["offset"] + m["length"]]
    if len(module) != m["length"] or hashlib.sha256(module).hexdigest() != m["sha256"]:
        raise ValueError(f"Corrupt didax export: the module of {spec['fun_name']} does not "
                         "match its checksum")
    version = spec["calling_convention_version"]
    if not (minimum_supported_calling_convention_version <= version
            <= maximum_supported_calling_convention_version):
        raise ValueError(f"The exported function {spec['fun_name']} uses calling convention "
                         f"version {version}, outside the supported range "
                         f"[{minimum_supported_calling_convention_version}.."
                         f"{maximum_supported_calling_convention_version}]")
    if spec["ordered_effects"] or spec["unordered_effects"]:
        raise NotImplementedError("deserializing modules with effects is not supported")
    return Exported(
        fun_name=spec["fun_name"], in_tree=tree_from_json(spec["in_tree"]),
        in_avals=[aval_from_json(a) for a in spec["in_avals"]],
        out_tree=tree_from_json(spec["out_tree"]),
        out_avals=[aval_from_json(a) for a in spec["out_avals"]],
        in_shardings_hlo=[sharding_from_json(s) for s in spec["in_shardings_hlo"]],
        out_shardings_hlo=[sharding_from_json(s) for s in spec["out_shardings_hlo"]],
        nr_devices=spec["nr_devices"], platforms=spec["platforms"],
        disabled_safety_checks=[_check_from(s) for s in spec["disabled_safety_checks"]],
        mlir_module_serialized=module,
        calling_convention_version=spec["calling_convention_version"],
        module_kept_var_idx=spec["module_kept_var_idx"],
        uses_global_constants=spec["uses_global_constants"],
        _get_vjp=None if vjp is None else (lambda _: vjp))


def _check_from(s: str) -> DisabledSafetyCheck:
    if s == "platform" or (s.startswith("custom_call:") and len(s) > len("custom_call:")):
        return DisabledSafetyCheck(s)
    raise ValueError(f"Cannot deserialize DisabledSafetyCheck with unknown kind: {s}")
