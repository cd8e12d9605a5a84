"""The messages of tracer errors, in JAX's words: an escaped (leaked) tracer, and a traced
value used where Python needs a concrete one (bool/int/float/index/item/tolist, or any
concretization), each naming the user's line and the transformation being traced."""

from __future__ import annotations

from didax._src import source_info
from didax._src.errors import ConcretizationTypeError, UnexpectedTracerError


def escaped_tracer_error(tracer, detail: str | None = None) -> UnexpectedTracerError:
    msg = (
        "Encountered an unexpected tracer. A function transformed by JAX had a side effect, "
        "allowing for a reference to an intermediate value with type "
        f"{tracer.aval.str_short()} wrapped in a "
        f"{getattr(type(tracer), 'display_name', type(tracer).__name__)} to escape the scope "
        "of the transformation.\nJAX transformations require that functions explicitly "
        "return their outputs, and disallow saving intermediate values to global state."
    )
    origin = getattr(tracer, "_origin", None)
    if origin is not None:
        msg += f"\nThe tracer was created at {source_info.summarize(origin)}."
    if detail:
        msg += "\n" + detail
    return UnexpectedTracerError(msg)


_ABSTRACT = "Abstract tracer value encountered where concrete value is expected: "
_CONVERT_TIP = ("The problem arose with the `{0}` function. If trying to convert the data "
                "type of a value, try using `x.astype({0})` or `jnp.array(x, {0})` instead.")
# op -> the head of the error message (JAX's words); {} is the traced array's type
_OP_WORDS = {
    "bool": "Attempted boolean conversion of traced array with shape {}.",
    "index": "The __index__() method was called on traced array with shape {}",
    "int": _ABSTRACT + "traced array with shape {}\n" + _CONVERT_TIP.format("int"),
    "float": _ABSTRACT + "traced array with shape {}\n" + _CONVERT_TIP.format("float"),
    "complex": _ABSTRACT + "traced array with shape {}\n" + _CONVERT_TIP.format("complex"),
    "item": _ABSTRACT + "traced array with shape {}\nThis occurred in the item() method "
                        "of jax.Array",
    "tolist": _ABSTRACT + "traced array with shape {0}\nThe tolist() method was called "
                          "on traced array with shape {0}.",
}


def _long_type(aval) -> str:
    """float32[2,3] (how JAX names a traced array's type in error messages)."""
    return f"{aval.dtype.name}[{','.join(map(str, aval.shape))}]"


def _where_msg(tracer) -> str:
    loc = source_info.current()
    trace = tracer._trace
    what = getattr(trace, "debug_desc", None) or type(trace).__name__
    line = f" at {loc.file}:{loc.line} (in {loc.function})" if loc else ""
    return (
        f"The error occurred while tracing{line} for {what}. This concrete value was not "
        "available in Python because it depends on the value of a traced argument."
    )


def conversion_error(tracer, op: str, err_cls=ConcretizationTypeError) -> Exception:
    """The error of converting traced `tracer` with Python's `op` (int, float, ...)."""
    head = _OP_WORDS[op].format(_long_type(tracer.aval))
    return err_cls(f"{head}\n{_where_msg(tracer)}")


def concretization_error(x, context: str = "") -> ConcretizationTypeError:
    msg = f"{_ABSTRACT}traced array with shape {_long_type(x.aval)}\n"
    if context:
        msg += context + "\n"
    return ConcretizationTypeError(msg + _where_msg(x))


