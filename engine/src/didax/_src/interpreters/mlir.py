"""`jax.interpreters.mlir`: lowering rules written against MLIR's Python bindings, as user
code writes them (the "How JAX primitives work" tutorial: `hlo.AddOp(hlo.MulOp(x, y), z)`).

didax lowers jaxprs to StableHLO *text* (lowering.py). A rule registered here instead builds
real `jaxlib.mlir` operations: for each equation, the rule runs inside a fresh private
`func.func` whose block arguments are the operands (the `ir.Value`s it receives); the
function is printed in MLIR's generic form, added to the module being built, and the
equation becomes a `func.call` to it. XLA inlines such calls when it compiles.

Also the helpers rules use (`ir_constant`, `aval_to_ir_type`, `dense_int_array`, ...),
`lower_fun` (a rule from a Python function, traced to a jaxpr), and
`LoweringRuleContext`/`ModuleContext` with the fields rules read.

May import core, dtypes, util and the other interpreters; jaxlib.mlir is imported on first
use (user code importing this module pays for it, `import didax` does not).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from didax._src import core, dtypes
from didax._src.interpreters import lowering
from didax._src.interpreters import partial_eval as pe

_state: dict[str, Any] = {}
_lock = threading.RLock()


def _ir():
    from jaxlib.mlir import ir  # noqa: PLC0415 - ~40 ms, only when rules are written

    return ir


def make_ir_context():
    """An MLIR context with the func, StableHLO and CHLO dialects loaded."""
    ir = _ir()
    from jaxlib.mlir._mlir_libs import _jax_mlir_ext  # noqa: PLC0415
    from jaxlib.mlir.dialects import chlo, stablehlo  # noqa: PLC0415

    registry = ir.DialectRegistry()
    _jax_mlir_ext.register_dialects(registry)
    ctx = ir.Context()
    ctx.append_dialect_registry(registry)
    ctx.load_all_available_dialects()
    stablehlo.register_dialect(ctx)
    chlo.register_dialect(ctx)
    return ctx


def _context():
    ctx = _state.get("ctx")
    if ctx is None:
        ctx = _state["ctx"] = make_ir_context()
    return ctx


# ----------------------------------------------------------------------------------------
# What a rule sees
# ----------------------------------------------------------------------------------------


class ModuleContext:
    """The module under construction (`ctx.module_context`)."""

    def __init__(self, context, module, ip, builder: lowering.ModuleBuilder | None = None):
        self.context, self.module, self.ip = context, module, ip
        self.platforms = ("cpu",)
        self.backend = None
        self.axis_context = None
        self.keepalives: list = []
        self.host_callbacks: list = []
        self._builder = builder

    def __repr__(self):
        return f"ModuleContext(module={self.module!r}, platforms={self.platforms})"


class LoweringRuleContext:
    """Per-equation information for a lowering rule (JAX's fields rules read)."""

    def __init__(self, module_context: ModuleContext, primitive, avals_in, avals_out,
                 tokens_in=None, tokens_out=None):
        self.module_context = module_context
        self.primitive = primitive
        self.avals_in = tuple(avals_in)
        self.avals_out = list(avals_out)
        self.tokens_in, self.tokens_out = tokens_in, tokens_out
        self.name_stack = ""
        self.traceback = None
        self.platforms = None
        self.dim_var_values: list = []
        self.const_lowering: dict = {}

    def replace(self, **kw) -> LoweringRuleContext:
        new = LoweringRuleContext(self.module_context, self.primitive, self.avals_in,
                                  self.avals_out, self.tokens_in, self.tokens_out)
        for k, v in kw.items():
            setattr(new, k, v)
        return new

    def set_tokens_out(self, tokens_out) -> None:
        self.tokens_out = tokens_out

    def __repr__(self):
        return (f"LoweringRuleContext(primitive={self.primitive}, avals_in={self.avals_in}, "
                f"avals_out={self.avals_out})")


# ----------------------------------------------------------------------------------------
# Helpers rules call
# ----------------------------------------------------------------------------------------


def dtype_to_ir_type(dtype):
    return _ir().Type.parse(lowering.elem_type(dtypes.canonicalize_dtype(np.dtype(dtype))))


def aval_to_ir_type(*args):
    """aval_to_ir_type(ctx, aval) as JAX 0.10 spells it (or aval_to_ir_type(aval), as
    older code does): the IR tensor type of aval."""
    return _ir().Type.parse(lowering.ir_type(args[-1]))


def aval_to_ir_types(*args) -> tuple:
    return (aval_to_ir_type(args[-1]),)


def ir_constant(val: Any, *, const_lowering=None, aval=None):
    """A `stablehlo.constant` holding val (a NumPy array or scalar)."""
    from jaxlib.mlir.dialects import stablehlo as hlo  # noqa: PLC0415

    del const_lowering
    arr = np.asarray(val) if aval is None else np.asarray(val, aval.dtype)
    arr = arr.astype(dtypes.canonicalize_dtype(arr.dtype)) if arr.dtype != np.bool_ else arr
    attr = _dense_attr(arr)
    return hlo.ConstantOp(attr).result


def _dense_attr(arr: np.ndarray):
    ir = _ir()
    aval = core.ShapedArray(arr.shape, arr.dtype)
    # the same exact hex form the text lowering uses (every dtype, NaN, -0.0 included)
    return ir.Attribute.parse(lowering.dense_attr(arr, aval).split(" : ")[0]
                              + f" : {lowering.ir_type(aval)}")


def ir_constants(val: Any) -> list:
    return [ir_constant(val)]


def dense_int_array(xs: Sequence[int]):
    return _ir().DenseI64ArrayAttr.get([int(x) for x in xs])


def dense_int_elements(xs: Sequence[int]):
    return _ir().DenseIntElementsAttr.get(np.asarray(xs, np.int64))


def dense_bool_array(xs: Sequence[bool]):
    return _ir().DenseBoolArrayAttr.get([bool(x) for x in xs])


def i32_attr(i: int):
    ir = _ir()
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(32), int(i))


def i64_attr(i: int):
    ir = _ir()
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(i))


def shape_tensor(sizes: Sequence[int]):
    return ir_constant(np.asarray(sizes, np.int32))


def token_type():
    return _ir().Type.parse("!stablehlo.token")


def flatten_ir_values(xs) -> list:
    out = []
    for x in xs:
        if isinstance(x, (list, tuple)):
            out.extend(flatten_ir_values(x))
        else:
            out.append(x)
    return out


def broadcast_in_dim(ctx: LoweringRuleContext, op, aval_out, *,
                     broadcast_dimensions: Sequence[int]):
    from jaxlib.mlir.dialects import stablehlo as hlo  # noqa: PLC0415

    return hlo.broadcast_in_dim(aval_to_ir_type(aval_out), op,
                                dense_int_array(broadcast_dimensions))


def convert_hlo(ctx: LoweringRuleContext, x, aval_in, aval_out):
    from jaxlib.mlir.dialects import stablehlo as hlo  # noqa: PLC0415

    if np.dtype(aval_in.dtype) == np.dtype(aval_out.dtype):
        return x
    return hlo.convert(aval_to_ir_type(aval_out), x)


def module_to_string(module, enable_debug_info=None) -> str:
    return module.operation.get_asm(enable_debug_info=bool(enable_debug_info))


# ----------------------------------------------------------------------------------------
# Registering rules
# ----------------------------------------------------------------------------------------

_PLATFORMS = {None, "cpu", "CPU", "host"}


def register_lowering(prim: core.Primitive, rule: Callable, platform: str | None = None,
                      cacheable: bool = True) -> None:
    """Registers `rule(ctx, *ir_values, **params)` as prim's lowering. Rules for other
    platforms (cuda, rocm, tpu) are accepted and never used, as on a CPU-only JAX."""
    del cacheable
    if platform not in _PLATFORMS:
        return
    lowering.lowerings[prim] = rule if getattr(rule, "_didax_native", False) \
        else _bindings_rule(prim, rule)


def _bindings_rule(prim: core.Primitive, rule: Callable) -> Callable:
    """A text-lowering rule running `rule` (an MLIR-bindings rule) in its own function."""
    def lower(ctx: lowering.RuleContext, *operands, **params):
        key = ("mlir_rule", rule, tuple(ctx.avals_in), tuple(ctx.avals_out),
               _hashable(params))
        sym = ctx.module.cache.get(key) if key[-1] is not None else None
        if sym is None:
            sym = ctx.module.fresh_func_name(f"{prim.name}_lowering")
            ctx.module.funcs.append(_function_text(prim, rule, sym, ctx, params))
            if key[-1] is not None:
                ctx.module.cache[key] = sym
        outs = lowering.call_function(ctx, sym, operands, ctx.avals_out)
        return outs if prim.multiple_results else outs[0]
    lower.user_rule = rule
    return lower


def _hashable(params: dict):
    try:
        key = tuple(sorted(params.items()))
        hash(key)
        return key
    except TypeError:
        return None


def _function_text(prim, rule, sym: str, ctx: lowering.RuleContext, params) -> str:
    """`func.func private @sym` built by rule, in MLIR's generic form."""
    ir = _ir()
    from jaxlib.mlir.dialects import func  # noqa: PLC0415

    with _lock, _context() as mctx, ir.Location.unknown():
        module = ir.Module.create()
        in_types = [aval_to_ir_type(a) for a in ctx.avals_in]
        out_types = [aval_to_ir_type(a) for a in ctx.avals_out]
        with ir.InsertionPoint(module.body) as ip:
            fn = func.FuncOp(sym, ir.FunctionType.get(in_types, out_types))
            fn.attributes["sym_visibility"] = ir.StringAttr.get("private")
            entry = fn.add_entry_block()
            mod_ctx = ModuleContext(mctx, module, ip, ctx.module)
            rule_ctx = LoweringRuleContext(mod_ctx, prim, ctx.avals_in, ctx.avals_out)
            with ir.InsertionPoint(entry):
                outs = rule(rule_ctx, *entry.arguments, **params)
                if not prim.multiple_results and not isinstance(outs, (list, tuple)):
                    outs = [outs]
                func.ReturnOp(flatten_ir_values(outs))
        # the function, and any function a `lower_fun` inside the rule added beside it
        return "\n".join("  " + op.get_asm(print_generic_op_form=True, assume_verified=True)
                         for op in module.body.operations)


# ----------------------------------------------------------------------------------------
# lower_fun: a rule from a traceable Python function
# ----------------------------------------------------------------------------------------


def lower_fun(fun: Callable, multiple_results: bool = True) -> Callable:
    """A lowering rule that traces fun(*args, **params) at the equation's input types and
    lowers the resulting jaxpr in place."""
    def rule(ctx, *args, **params):
        def flat(*xs):
            out = fun(*xs, **params)
            return list(out) if multiple_results else [out]

        closed = pe.trace_to_closed_jaxpr(flat, list(ctx.avals_in), "lower_fun")
        if isinstance(ctx, lowering.RuleContext):  # didax's own (text) lowering
            outs = lowering.lower_jaxpr_body(ctx.fn, closed.jaxpr, closed.consts, args)
            return outs if multiple_results else outs[0]
        outs = _call_jaxpr_from_bindings(ctx, closed, args)
        return outs if multiple_results else outs[0]

    rule._didax_native = True
    return rule


def _call_jaxpr_from_bindings(ctx: LoweringRuleContext, closed: core.ClosedJaxpr, args):
    """Inside a bindings rule: lower closed to text, parse it into the rule's context,
    copy its functions into the rule's module and call the entry one."""
    ir = _ir()
    from jaxlib.mlir.dialects import func  # noqa: PLC0415

    builder = lowering.ModuleBuilder("lower_fun")
    outer = ctx.module_context._builder
    if outer is not None:  # share the symbol names: the copies never collide
        builder.func_names = outer.func_names
    sym = lowering.lower_function(builder, "lower_fun", closed)
    parsed = ir.Module.parse(builder.text(), context=ctx.module_context.context)
    for op in parsed.body.operations:
        op.clone(ip=ir.InsertionPoint(ctx.module_context.module.body))
    ctx.module_context.keepalives.append(parsed)
    out_types = [aval_to_ir_type(a) for a in closed.out_avals]
    call = func.CallOp(out_types, ir.FlatSymbolRefAttr.get(sym), list(args))
    return list(call.results)
