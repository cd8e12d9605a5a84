"""Values for the playground's trace cards: bounded JSON summaries of arrays, the forward
value of every variable of a jaxpr (an evaluator that records as it goes, descending into
jit bodies), and the cotangent of every variable — obtained in one reverse pass by adding a
zero "probe" to each equation's output and differentiating with respect to the probes.

May import core, interpreters, lax, api.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from didax._src import core, dtypes
from didax._src.core import ClosedJaxpr, Jaxpr, Literal

PREVIEW = 16


def _finite_float(x: float) -> float | str:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return float(x)


def _preview_item(x) -> Any:
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (complex, np.complexfloating)):
        c = complex(x)
        return f"{c.real:g}{c.imag:+g}j"
    if isinstance(x, (np.integer, int)):
        return int(x)
    return _finite_float(float(x))


def summarize(value) -> dict:
    """A ValueSummary of any array-like (statistics over finite elements)."""
    try:
        arr = np.asarray(value)
        if arr.dtype == object:
            raise TypeError("not an array")
    except Exception:  # noqa: BLE001 - summaries describe whatever they are given
        arr = np.zeros((0,))
    dtype = arr.dtype
    flat = arr.reshape(-1)
    out = {"shape": [int(d) for d in arr.shape], "dtype": _dtype_name(dtype),
           "min": None, "max": None, "mean": None, "norm": None, "nan_count": 0,
           "inf_count": 0, "preview": [_preview_item(x) for x in flat[:PREVIEW]],
           "truncated": bool(flat.size > PREVIEW)}
    if flat.size == 0 or dtype == dtypes.float0 or dtype.kind == "V" and \
            dtype.name != "bfloat16":
        return out
    numeric = flat.astype(np.complex128 if dtype.kind == "c" else np.float64)
    if dtype.kind in "fcV":
        isnan = np.isnan(numeric)
        isinf = np.isinf(numeric)
        out["nan_count"] = int(isnan.sum())
        out["inf_count"] = int(isinf.sum())
        numeric = numeric[~(isnan | isinf)]
    if numeric.size == 0:
        return out
    mag = np.abs(numeric) if dtype.kind == "c" else numeric
    out["min"] = float(mag.min())
    out["max"] = float(mag.max())
    out["mean"] = float(mag.mean())
    out["norm"] = float(np.sqrt(np.sum(np.abs(numeric) ** 2)))
    return out


def _dtype_name(dt) -> str:
    return "float0" if dt == dtypes.float0 else np.dtype(dt).name


# ----------------------------------------------------------------------------------------
# Forward values
# ----------------------------------------------------------------------------------------


def has_io(jaxpr: Jaxpr) -> bool:
    """Whether the program calls io_callbacks (whose results a re-evaluation cannot know)."""
    return any(getattr(e, "name", "") in ("IO", "OrderedIO") for e in jaxpr.effects)


def record_values(closed: ClosedJaxpr, args, ids) -> tuple[dict, list]:
    """Evaluates closed on args; returns ({var_id: summary}, outputs). The user's effects
    do not run again (debug prints, io_callbacks): values computed from an io_callback's
    result are unknown here and left out."""
    from didax._src import callback  # noqa: PLC0415

    values: dict[str, dict] = {}
    with callback.muted():
        outs = _eval_recording(closed.jaxpr, closed.consts, args, ids, values,
                               [False] * len(args))
    return values, outs


def _eval_recording(jaxpr: Jaxpr, consts, args, ids, values, tainted_in) -> list:
    env: dict = {}
    tainted: set = {v for v, t in zip(jaxpr.invars, tainted_in) if t}

    def write(v, x):
        env[v] = x
        if type(v) is not core.DropVar and v not in tainted:
            values[ids.var(v)] = summarize(x)

    for v, x in zip(jaxpr.constvars, consts):
        write(v, x)
    for v, x in zip(jaxpr.invars, args):
        write(v, x)
    for eqn in jaxpr.eqns:
        invals = [a.val if type(a) is Literal else env[a] for a in eqn.invars]
        in_taint = [type(a) is not Literal and a in tainted for a in eqn.invars]
        if eqn.primitive.name == "jit":
            inner = eqn.params["jaxpr"]
            outs = _eval_recording(inner.jaxpr, inner.consts, invals, ids, values, in_taint)
            inner_tainted = _tainted_outputs(inner.jaxpr, in_taint)
            tainted.update(v for v, t in zip(eqn.outvars, inner_tainted) if t)
        else:
            with core.source_info_override(eqn.source_info):
                outs = eqn.primitive.bind(*invals, **eqn.params)
            if not eqn.primitive.multiple_results:
                outs = [outs]
            if any(in_taint) or any(getattr(e, "name", "") in ("IO", "OrderedIO")
                                    for e in eqn.effects):
                tainted.update(eqn.outvars)
        for v, x in zip(eqn.outvars, outs):
            write(v, x)
    return [a.val if type(a) is Literal else env[a] for a in jaxpr.outvars]


def _tainted_outputs(jaxpr: Jaxpr, tainted_in) -> list[bool]:
    """Which outputs depend on a tainted input or an io_callback result."""
    tainted = {v for v, t in zip(jaxpr.invars, tainted_in) if t}
    for eqn in jaxpr.eqns:
        if any(type(a) is not Literal and a in tainted for a in eqn.invars) or any(
                getattr(e, "name", "") in ("IO", "OrderedIO") for e in eqn.effects):
            tainted.update(eqn.outvars)
    return [type(a) is not Literal and a in tainted for a in jaxpr.outvars]


# ----------------------------------------------------------------------------------------
# Cotangents of every variable
# ----------------------------------------------------------------------------------------


def _probe_vars(jaxpr: Jaxpr, out: list) -> None:
    """Variables (incl. inside jit bodies) that can carry a cotangent, in program order."""
    for v in jaxpr.invars:
        if _differentiable(v):
            out.append(v)
    for eqn in jaxpr.eqns:
        if eqn.primitive.name == "jit":
            inner = eqn.params["jaxpr"].jaxpr
            _probe_vars_inner(inner, out)
        for v in eqn.outvars:
            if _differentiable(v) and type(v) is not core.DropVar:
                out.append(v)


def _probe_vars_inner(jaxpr: Jaxpr, out: list) -> None:
    for eqn in jaxpr.eqns:
        if eqn.primitive.name == "jit":
            _probe_vars_inner(eqn.params["jaxpr"].jaxpr, out)
        for v in eqn.outvars:
            if _differentiable(v) and type(v) is not core.DropVar:
                out.append(v)


def _differentiable(v) -> bool:
    aval = v.aval
    return isinstance(aval, core.ShapedArray) and dtypes.is_inexact(aval.dtype)


def record_cotangents(closed: ClosedJaxpr, args, out_cts, ids) -> dict:
    """{var_id: summary of its cotangent} for the outputs' cotangents out_cts."""
    from didax._src import api  # noqa: PLC0415

    probed: list = []
    _probe_vars(closed.jaxpr, probed)
    index = {v: i for i, v in enumerate(probed)}
    zeros = [np.zeros(v.aval.shape, v.aval.dtype) for v in probed]

    def with_probes(probes):
        return _eval_probed(closed.jaxpr, closed.consts, args, index, probes)

    from didax._src import callback  # noqa: PLC0415

    with callback.muted():
        _, pullback = api.vjp(with_probes, zeros)
        (cts,) = pullback(list(out_cts))
    return {ids.var(v): summarize(ct) for v, ct in zip(probed, cts)}


def _eval_probed(jaxpr: Jaxpr, consts, args, index, probes) -> list:
    env: dict = {}

    def write(v, x):
        i = index.get(v)
        env[v] = x if i is None else core_add(x, probes[i])

    for v, x in zip(jaxpr.constvars, consts):
        env[v] = x
    for v, x in zip(jaxpr.invars, args):
        write(v, x)
    for eqn in jaxpr.eqns:
        invals = [a.val if type(a) is Literal else env[a] for a in eqn.invars]
        if eqn.primitive.name == "jit":
            inner = eqn.params["jaxpr"]
            outs = _eval_probed(inner.jaxpr, inner.consts, invals, index, probes)
        else:
            outs = eqn.primitive.bind(*invals, **eqn.params)
            if not eqn.primitive.multiple_results:
                outs = [outs]
        for v, x in zip(eqn.outvars, outs):
            write(v, x)
    return [a.val if type(a) is Literal else env[a] for a in jaxpr.outvars]


def core_add(x, p):
    from didax._src.lax import lax  # noqa: PLC0415

    return lax.add(x, p)
