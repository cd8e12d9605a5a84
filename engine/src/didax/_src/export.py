"""`didax.export`: a jitted function lowered once to StableHLO and packaged with what is
needed to call it later, possibly in another process — an `Exported`.

`export(jit(f))(*specs)` traces and lowers f, drops unused inputs (`module_kept_var_idx`),
checks the module (custom-call targets, host callbacks) and stores the module as a StableHLO
portable artifact (versioned VHLO bytecode, 12-week compatibility target). `Exported.call`
runs it eagerly, under jit and under reverse-mode AD: the call is a `custom_vjp` whose
forward binds the `call_exported` primitive and whose backward calls the exported VJP
(`Exported.vjp()`, itself an Exported, exported lazily from the primal jaxpr while that is
still in memory, or read back from the serialization up to the order it was saved with).

The primitive's lowering splices the exported module's functions (renamed) into the caller's
module and calls its `main`; eager evaluation compiles exactly that module. Forward-mode AD
and vmap of an exported function are refused as in JAX.

Serialization lives in `export_format` (spec: engine/docs/export-format.md).
May import core, the interpreters, xla_backend, array, lax._define, api, pjit.
"""

from __future__ import annotations

import re
import sys
import weakref
from collections.abc import Callable, Sequence

import numpy as np

from didax._src import core, dtypes, xla_backend
from didax._src.api_util import ShapeDtypeStruct
from didax._src.core import ClosedJaxpr
from didax._src.custom_derivatives import custom_vjp
from didax._src.interpreters import lowering
from didax._src.interpreters import partial_eval as pe
from didax._src.jax_api_names import JIT_NUMPY
from didax._src.lax._define import NONLINEAR, def_primitive, unsupported
from didax._src.tree_util import (
    equality_errors_pytreedef,
    keystr,
    tree_flatten,
    tree_flatten_with_path,
    tree_unflatten,
)

# The calling convention of the exported `main` (JAX 0.10 writes 10; 9 differs only in
# details didax never emits: no shape polymorphism, no ordered effects).
CALLING_CONVENTION_VERSION = 10
minimum_supported_calling_convention_version = 9
maximum_supported_calling_convention_version = 10


class DisabledSafetyCheck:
    """A safety check to skip: `platform()` (call on a platform not exported for) or
    `custom_call(target)` (export a custom call with no compatibility guarantee)."""

    __slots__ = ("_impl",)

    def __init__(self, _impl: str):
        self._impl = _impl

    @classmethod
    def platform(cls) -> DisabledSafetyCheck:
        return cls("platform")

    @classmethod
    def custom_call(cls, target_name: str) -> DisabledSafetyCheck:
        return cls(f"custom_call:{target_name}")

    def is_custom_call(self) -> str | None:
        """The custom-call target this check allows, or None."""
        kind, _, target = self._impl.partition(":")
        return target if kind == "custom_call" and target else None

    def __str__(self):
        return self._impl

    __repr__ = __str__

    def __eq__(self, other):
        return isinstance(other, DisabledSafetyCheck) and other._impl == self._impl

    def __hash__(self):
        return hash(self._impl)


class Exported:
    """A function lowered to StableHLO plus its calling convention.

    fun_name; in_tree (the (args, kwargs) structure) and the flat in_avals; out_tree and
    out_avals; in/out_shardings_hlo (None: unspecified); nr_devices; platforms;
    ordered/unordered effects; disabled_safety_checks; mlir_module_serialized (the
    portable artifact); calling_convention_version; module_kept_var_idx (the inputs the
    module actually takes); uses_global_constants (a platform-index argument)."""

    def __init__(self, *, fun_name: str, in_tree, in_avals, out_tree, out_avals,
                 in_shardings_hlo, out_shardings_hlo, nr_devices: int, platforms,
                 ordered_effects=(), unordered_effects=(), disabled_safety_checks=(),
                 mlir_module_serialized: bytes, calling_convention_version: int,
                 module_kept_var_idx, uses_global_constants: bool,
                 _get_vjp: Callable[[Exported], Exported] | None):
        self.fun_name = fun_name
        self.in_tree, self.in_avals = in_tree, tuple(in_avals)
        self.out_tree, self.out_avals = out_tree, tuple(out_avals)
        self.in_shardings_hlo = tuple(in_shardings_hlo)
        self.out_shardings_hlo = tuple(out_shardings_hlo)
        self.nr_devices = nr_devices
        self.platforms = tuple(platforms)
        self.ordered_effects = tuple(ordered_effects)
        self.unordered_effects = tuple(unordered_effects)
        self.disabled_safety_checks = tuple(disabled_safety_checks)
        self.mlir_module_serialized = bytes(mlir_module_serialized)
        self.calling_convention_version = calling_convention_version
        self.module_kept_var_idx = tuple(module_kept_var_idx)
        self.uses_global_constants = uses_global_constants
        self._get_vjp = _get_vjp
        self._vjp_cache: Exported | None = None

    def __str__(self):
        return f"Exported(fun_name={self.fun_name}, ...)"

    __repr__ = __str__

    def mlir_module(self) -> str:
        """The module as StableHLO text (read back from the portable artifact)."""
        # (with locations, as JAX prints it: the arguments' names)
        module = deserialize_module(self.mlir_module_serialized)
        return module.operation.get_asm(enable_debug_info=True)

    def has_vjp(self) -> bool:
        return self._get_vjp is not None

    def vjp(self) -> Exported:
        """The Exported of the VJP: flat primal inputs then one cotangent per output, to a
        tuple of input cotangents."""
        if self._get_vjp is None:
            raise ValueError("No VJP is available")
        if self._vjp_cache is None:
            self._vjp_cache = self._get_vjp(self)
        return self._vjp_cache

    def serialize(self, vjp_order: int = 0) -> bytearray:
        """Bytes holding this function and `vjp_order` levels of its VJP."""
        from didax._src import export_format  # noqa: PLC0415

        return export_format.serialize(self, vjp_order=vjp_order)

    def call(self, *args, **kwargs):
        """Calls the exported function (eagerly, under jit, under grad up to the VJP order
        available) on arguments of the exported structure and types."""
        return call_exported(self)(*args, **kwargs)


def deserialize(blob: bytes | bytearray) -> Exported:
    """The Exported held by bytes from `Exported.serialize`."""
    from didax._src import export_format  # noqa: PLC0415

    return export_format.deserialize(blob)


def default_export_platform() -> str:
    return "cpu"


# ----------------------------------------------------------------------------------------
# Exporting
# ----------------------------------------------------------------------------------------


def export(fun_jit, *, platforms: Sequence[str] | None = None,
           disabled_checks: Sequence[DisabledSafetyCheck] = ()) -> Callable[..., Exported]:
    """Returns a function taking arguments (arrays or ShapeDtypeStructs, as pytrees) and
    returning the Exported of `fun_jit`, which must be the result of `jit`."""
    from didax._src.pjit import JitWrapped, jit, result_infos  # noqa: PLC0415

    if _jitted_in_jax(fun_jit):  # (jnp.cos is a jitted function in JAX)
        fun_jit = jit(fun_jit)
    if not isinstance(fun_jit, JitWrapped):
        raise ValueError(
            f"Function to be exported must be the result of `jit` but is: {fun_jit}")
    plats = tuple(platforms) if platforms is not None else (default_export_platform(),)
    if not plats:
        raise ValueError("At least one lowering platform must be given")

    def do_export(*args_specs, **kwargs_specs) -> Exported:
        traced = fun_jit.trace(*args_specs, **kwargs_specs)
        return export_closed_jaxpr(
            traced.jaxpr, fun_name=traced.fun_name, in_tree=traced.in_tree,
            out_tree=traced.out_tree, platforms=plats, disabled_checks=disabled_checks,
            keep_unused=fun_jit.keep_unused, arg_names=traced._arg_names,
            result_infos=result_infos(traced.out_tree))

    return do_export


def _jitted_in_jax(fun) -> bool:
    """fun is a didax.numpy function that JAX defines under jit."""
    name = getattr(fun, "__name__", None)
    return name in JIT_NUMPY and getattr(sys.modules.get("didax.numpy"), name, None) is fun


def export_closed_jaxpr(closed: ClosedJaxpr, *, fun_name: str, in_tree, out_tree,
                        platforms: tuple[str, ...], disabled_checks=(),
                        keep_unused: bool = False, arg_names=None,
                        result_infos=None) -> Exported:
    """The Exported of a traced function (the module is lowered and checked here); the
    arguments' names and the results' show in the module as JAX's do."""
    if any(isinstance(c, core.Tracer) for c in closed.consts):
        raise ValueError(f"Cannot export {fun_name}: it closes over traced values")
    dced, used = pe.dce_closed_jaxpr(closed, None, instantiate=keep_unused)
    kept = tuple(i for i, u in enumerate(used) if u)
    if arg_names is not None:
        arg_names = [arg_names[i] for i in kept] if len(arg_names) == len(used) else None
    module_text = _lower_module(dced, fun_name, platforms, arg_names, result_infos)
    artifact = _check_and_serialize(module_text, disabled_checks)
    in_avals, out_avals = tuple(closed.in_avals), tuple(closed.out_avals)
    return Exported(
        fun_name=fun_name, in_tree=in_tree, in_avals=in_avals, out_tree=out_tree,
        out_avals=out_avals, in_shardings_hlo=(None,) * len(in_avals),
        out_shardings_hlo=(None,) * len(out_avals), nr_devices=1, platforms=platforms,
        disabled_safety_checks=tuple(disabled_checks), mlir_module_serialized=artifact,
        calling_convention_version=CALLING_CONVENTION_VERSION, module_kept_var_idx=kept,
        uses_global_constants=len(platforms) > 1,
        _get_vjp=_vjp_exporter(closed, platforms, tuple(disabled_checks)))


def _sym(name: str) -> str:
    """A function name as an MLIR symbol (`<lambda>` -> `_lambda`)."""
    name = name.replace("<", "_").replace(">", "")
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "f"


def _lower_module(closed: ClosedJaxpr, fun_name: str, platforms, arg_names=None,
                  result_infos=None) -> str:
    """StableHLO text: `main` computes the function; with several platforms it first takes
    the i32 platform index (a global constant) as the calling convention requires."""
    module = lowering.ModuleBuilder(f"jit_{_sym(fun_name)}", locations=False)
    if len(platforms) == 1:
        lowering.lower_function(module, "main", closed, public=True,
                                result_infos=result_infos, arg_names=arg_names)
    else:
        body = lowering.lower_function(module, _sym(fun_name), closed)
        _emit_platform_main(module, body, closed)
    if module.host_callbacks:
        raise NotImplementedError("serialization of host_callbacks is not yet implemented")
    return module.text()


def _emit_platform_main(module, body: str, closed: ClosedJaxpr) -> None:
    fn = lowering.FuncBuilder(module)
    args = [lowering.Value(f"%arg{i + 1}", v.aval) for i, v in enumerate(closed.jaxpr.invars)]
    outs = fn.op("func.call", args, closed.out_avals, f"callee = @{body}")
    fn.op("func.return", outs, [])
    params = ['%arg0: tensor<i32> {jax.global_constant = "_platform_index"}']
    params += [f"{a.name}: {lowering.ir_type(a.aval)}" for a in args]
    results = ", ".join(lowering.ir_type(a) for a in closed.out_avals)
    text = "\n".join(fn.lines)
    module.funcs.append(f"  func.func public @main({', '.join(params)}) -> ({results}) "
                        f"{{\n{text}\n  }}")


# Custom-call targets with compatibility guarantees (those JAX lists for CPU, plus the
# target-independent ones); any other target needs DisabledSafetyCheck.custom_call.
_STABLE_TARGET = re.compile(r"^(lapack_[a-z]+_ffi|shape_assertion|Sharding|"
                            r"SPMDFullToShardShape|SPMDShardToFullShape|"
                            r"annotate_device_placement|AllocateBuffer)$")


def _check_and_serialize(module_text: str, disabled_checks) -> bytes:
    from jaxlib.mlir import ir  # noqa: PLC0415
    from jaxlib.mlir.dialects import stablehlo  # noqa: PLC0415

    allowed = {c.is_custom_call() for c in disabled_checks} - {None}
    with xla_backend.mlir_context(), ir.Location.unknown():
        module = ir.Module.parse(module_text)
        bad = [op for op in _walk(module.operation)
               if op.name == "stablehlo.custom_call" and not _target_ok(op, allowed)]
        if bad:
            ops = "\n".join(str(op) for op in bad)
            raise ValueError("Cannot serialize code with custom calls whose targets have no "
                             "compatibility guarantees. Examples are:\n" + ops + ".\n")
        module.operation.attributes["jax.uses_shape_polymorphism"] = ir.BoolAttr.get(False)
        return bytes(stablehlo.serialize_portable_artifact(module, stablehlo_target()))


def _target_ok(op, allowed: set) -> bool:
    from jaxlib.mlir import ir  # noqa: PLC0415

    target = ir.StringAttr(op.attributes["call_target_name"]).value
    return "ALL" in allowed or target in allowed or bool(_STABLE_TARGET.match(target))


def _walk(op):
    yield op
    for region in op.regions:
        for block in region:
            for inner in block:
                yield from _walk(inner.operation)


def stablehlo_target() -> str:
    """The StableHLO version artifacts are written for: what consumers built up to 12
    weeks ago can read."""
    from jaxlib.mlir.dialects import stablehlo  # noqa: PLC0415

    req = stablehlo.StablehloCompatibilityRequirement.WEEK_12
    return stablehlo.get_version_from_compatibility_requirement(req)


def deserialize_module(artifact: bytes):
    """The ir.Module held by a portable artifact (in didax's shared MLIR context)."""
    from jaxlib.mlir.dialects import stablehlo  # noqa: PLC0415

    return stablehlo.deserialize_portable_artifact(xla_backend.mlir_context(), artifact)


# ----------------------------------------------------------------------------------------
# The VJP of an exported function
# ----------------------------------------------------------------------------------------


def _vjp_exporter(closed: ClosedJaxpr, platforms, disabled_checks) -> Callable:
    """Exports the VJP of closed when first asked (the jaxpr is kept until then)."""

    def get_vjp(primal: Exported) -> Exported:
        from didax._src.pjit import jit  # noqa: PLC0415

        n_in = len(primal.in_avals)
        out_avals = primal.out_avals

        def fun_vjp_jax(*args_and_cts):
            from didax._src.api import vjp  # noqa: PLC0415

            args, cts = args_and_cts[:n_in], args_and_cts[n_in:]
            _, pullback = vjp(lambda *xs: core.eval_jaxpr(closed.jaxpr, closed.consts, *xs),
                              *args)
            cts = [np.zeros(a.shape, dtypes.float0) if _is_float0(a) else c
                   for c, a in zip(cts, (o.to_tangent_aval() for o in out_avals))]
            return tuple(pullback(list(cts)))

        specs = [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
                 for a in (*primal.in_avals, *(o.to_tangent_aval() for o in out_avals))]
        return export(jit(fun_vjp_jax), platforms=platforms,
                      disabled_checks=disabled_checks)(*specs)

    return get_vjp


def _is_float0(aval) -> bool:
    return aval.dtype == dtypes.float0


# ----------------------------------------------------------------------------------------
# Calling an Exported
# ----------------------------------------------------------------------------------------


def call_exported(exported: Exported) -> Callable:
    """The callable behind `Exported.call`: a custom_vjp over the call_exported primitive
    whose backward pass calls the exported VJP."""
    if not isinstance(exported, Exported):
        raise ValueError(f"The exported argument must be an export.Exported. "
                         f"Found {exported}.")

    @custom_vjp
    def f_flat(*args_flat):
        return call_exported_p.bind(*args_flat, exported=exported)

    def f_flat_vjp_fwd(*args_flat):
        return f_flat(*args_flat), args_flat

    def f_flat_vjp_bwd(residual, ct_res_flat):
        exp_vjp = exported.vjp()
        ct_avals = exp_vjp.in_avals[len(residual):]
        cts = [np.zeros(a.shape, dtypes.float0) if _is_float0(a) else c
               for c, a in zip(ct_res_flat, ct_avals)]
        return tuple(call_exported(exp_vjp)(*residual, *cts))

    f_flat.defvjp(f_flat_vjp_fwd, f_flat_vjp_bwd)

    def f_imported(*args, **kwargs):
        args_flat, in_tree = tree_flatten((args, kwargs))
        if in_tree != exported.in_tree:
            raise ValueError(_tree_mismatch(exported, in_tree))
        return tree_unflatten(exported.out_tree, f_flat(*args_flat))

    return f_imported


def _tree_mismatch(exported: Exported, in_tree) -> str:
    diffs = "\n".join(
        f"   - {_args_path(path)} is a {got} in the invocation and a {want} when "
        f"exported, so {why}.\n"
        for path, got, want, why in equality_errors_pytreedef(in_tree, exported.in_tree))
    return ("The invocation args and kwargs must have the same pytree structure as when "
            f"the function '{exported.fun_name}' was exported, but they have the following "
            "structural differences:\n" + diffs)


def _args_path(path) -> str:
    """A path into the (args, kwargs) tuple, as `args[0]['w']` / `kwargs['k']`."""
    if not path:
        return "(args, kwargs)"
    head = "args" if getattr(path[0], "idx", 0) == 0 else "kwargs"
    return head + keystr(tuple(path[1:]))


def _arg_desc(exported: Exported, i: int, dim: int | None = None) -> str:
    tree = exported.in_tree.unflatten([0] * exported.in_tree.num_leaves)
    paths = [p for p, _ in tree_flatten_with_path(tree)[0]]
    desc = _args_path(paths[i]) if i < len(paths) else f"args[{i}]"
    return desc if dim is None else f"{desc}.shape[{dim}]"


# --- the primitive


def _call_exported_abstract_eval(*avals, exported: Exported):
    if len(avals) != len(exported.in_avals):
        raise ValueError(f"Function {exported.fun_name} takes {len(exported.in_avals)} "
                         f"arguments, called with {len(avals)}")
    for i, (want, got) in enumerate(zip(exported.in_avals, avals)):
        if len(want.shape) != len(got.shape):
            raise ValueError(f"Rank mismatch for {_arg_desc(exported, i)}: expected "
                             f"{want.shape} and called with {got.shape}")
        if want.dtype != got.dtype:
            raise ValueError(f"Dtype mismatch for {_arg_desc(exported, i)}: expected "
                             f"{_dtype_name(want.dtype)} and called with "
                             f"{_dtype_name(got.dtype)}")
        for d, (a, b) in enumerate(zip(want.shape, got.shape)):
            if a != b:
                raise ValueError(f"Shape mismatch for {_arg_desc(exported, i, d)} (expected "
                                 f"same constant): expected {want.shape} and called with "
                                 f"{got.shape}")
    return list(exported.out_avals)


def _dtype_name(dt) -> str:
    return getattr(dt, "name", str(dt))


_eager_cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _call_exported_impl(*args, exported: Exported):
    for a in args:
        if isinstance(a, core.Tracer):
            raise core.escaped_tracer_error(a)
    _call_exported_abstract_eval(*map(core.get_aval, args), exported=exported)
    exe = _eager_cache.get(exported)
    if exe is None:
        exe = _eager_cache[exported] = _compile_eager(exported)
    args = [np.zeros(np.shape(x), np.bool_) if _is_float0(a) else x
            for x, a in zip(args, exported.in_avals)]
    outs = exe.call(args)
    return [np.zeros(a.shape, dtypes.float0) if _is_float0(a) else o
            for o, a in zip(outs, exported.out_avals)]


def _compile_eager(exported: Exported):
    """The executable of a module whose main just calls the exported one (built by this
    primitive's own lowering rule, so eager and jitted calls run the same code)."""
    from didax._src.pjit import XlaExecutable  # noqa: PLC0415

    closed = pe.trace_to_closed_jaxpr(
        lambda *xs: call_exported_p.bind(*xs, exported=exported), list(exported.in_avals),
        "call_exported")
    module = lowering.lower_jaxpr_to_module(
        closed, name=f"jit_call_exported_{_sym(exported.fun_name)}")
    text = module.text()
    exe = xla_backend.compile(text)
    phys_in = [_physical(a) for a in exported.in_avals]
    phys_out = [_physical(a) for a in exported.out_avals]
    return XlaExecutable(exe, text, list(range(len(phys_in))), [], phys_in, phys_out,
                         [None] * len(phys_out))


def _physical(aval):
    """float0 values travel as booleans (XLA has no zero-size element type)."""
    if _is_float0(aval):
        return core.ShapedArray(aval.shape, np.bool_)
    return aval


def _call_exported_lower(ctx, *args, exported: Exported):
    _check_platform(exported)
    module = ctx.module
    devices = module.num_replicas * module.num_partitions
    if exported.nr_devices not in (1, devices):
        raise ValueError(f"Function {exported.fun_name} was exported for "
                         f"{exported.nr_devices} devices and is called in a context with "
                         f"{devices} devices, which is not allowed.")
    main = _splice_module(module, exported)
    operands = []
    if len(exported.platforms) > 1:
        idx = (exported.platforms.index("cpu") if "cpu" in exported.platforms else 0)
        operands.append(ctx.fn.const(np.int32(idx), core.ShapedArray((), np.int32)))
    operands += [args[i] for i in exported.module_kept_var_idx]
    out_avals = [_physical(a) for a in exported.out_avals]
    return lowering.call_function(ctx, main, operands, out_avals)


def _check_platform(exported: Exported) -> None:
    if "cpu" in exported.platforms:
        return
    if DisabledSafetyCheck.platform() in exported.disabled_safety_checks:
        return
    raise ValueError(f"Function '{exported.fun_name}' was exported for platforms "
                     f"'{exported.platforms}' but it is used on '('cpu',)'.")


_func_texts: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_uid = [0]


def _splice_module(module, exported: Exported) -> str:
    """Adds the exported module's functions to the caller's module (once per module) under
    fresh private names; returns the symbol of its main."""
    key = ("call_exported", id(exported))
    sym = module.cache.get(key)
    if sym is not None:
        return sym
    texts = _func_texts.get(exported)
    if texts is None:
        texts = _func_texts[exported] = _function_texts(exported)
    placeholders, funcs = texts
    new_names = {ph: module.fresh_func_name(
        f"call_exported_{_sym(exported.fun_name)}" + ("" if orig == "main" else f"_{orig}"))
        for ph, orig in placeholders.items()}
    for text in funcs:
        for ph, new in new_names.items():
            text = text.replace(ph, new)
        module.funcs.append("  " + text.replace("\n", "\n  "))
    sym = next(new for ph, new in new_names.items() if placeholders[ph] == "main")
    module.cache[key] = sym
    module.cache[("keep", id(exported))] = exported
    return sym


def _function_texts(exported: Exported) -> tuple[dict[str, str], list[str]]:
    """The module's functions in generic form, made private, every symbol renamed to a
    unique placeholder (`__dxp<uid>_<i>__`) that the caller substitutes."""
    from jaxlib.mlir import ir  # noqa: PLC0415

    _uid[0] += 1
    module = deserialize_module(exported.mlir_module_serialized)
    placeholders: dict[str, str] = {}
    with module.context:
        ops = list(module.body.operations)
        for i, op in enumerate(ops):
            name = ir.StringAttr(op.attributes["sym_name"]).value
            ph = f"__dxp{_uid[0]}_{i}__"
            placeholders[ph] = name
            ir.SymbolTable.replace_all_symbol_uses(name, ph, module.operation)
            ir.SymbolTable.set_symbol_name(op, ph)
            op.attributes["sym_visibility"] = ir.StringAttr.get("private")
        texts = [op.get_asm(print_generic_op_form=True, enable_debug_info=False)
                 for op in ops]
    return placeholders, texts


call_exported_p = def_primitive(
    "call_exported", abstract_eval=_call_exported_abstract_eval, impl=None,
    eager_impl=_call_exported_impl,
    jvp=unsupported("Exported.call differentiates through a custom_vjp that calls the "
                    "exported VJP; forward mode is refused as for any custom_vjp"),
    transpose=NONLINEAR,
    batch=unsupported("an exported module has fixed shapes (no shape polymorphism)"),
    lower=_call_exported_lower, multiple_results=True)
