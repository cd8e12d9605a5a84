"""Structured control flow: `cond`/`switch` (conditionals.py), `scan` (scan.py) and
`while_loop`/`fori_loop`/`map`/`associative_scan` (loops.py) and `reduce` with a user
computation (reduce.py), each bound as a higher-order
primitive carrying jaxprs, with every interpreter's rule. Helpers live in common.py and the
eager execution paths in eager.py."""

from didax._src.lax import reductions as _reductions
from didax._src.lax.control_flow.conditionals import cond, cond_p, switch
from didax._src.lax.control_flow.loops import (
    associative_scan,
    fori_loop,
    map,
    while_loop,
    while_p,
)
from didax._src.lax.control_flow.reduce import reduce, reduce_p
from didax._src.lax.control_flow.scan import scan, scan_p

# cumprod/cummax/cummin/cumlogsumexp differentiate JAX's associative_scan, as JAX does
_reductions.scan_for_jvp[:] = [associative_scan]

__all__ = ["cond", "cond_p", "switch", "scan", "scan_p", "while_loop", "while_p",
           "fori_loop", "map", "associative_scan", "reduce", "reduce_p"]
