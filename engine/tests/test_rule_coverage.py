"""Every primitive declared with def_primitive has all its rules — eager impl, abstract
evaluation, JVP, transpose, batching and StableHLO lowering — or an explicit, documented
gap in `_define.declared_gaps`. A rule that is silently missing fails here, and so does a
table entry that is not callable (e.g. a None left behind) or a gap declared next to a rule.
"""

from __future__ import annotations

import sys

import didax  # noqa: F401 - importing didax declares every primitive
import pytest
from didax._src.core import Primitive
from didax._src.interpreters import ad, batching, lowering
from didax._src.lax import _define

TABLES = {
    "jvp": ad.primitive_jvps,
    "transpose": ad.primitive_transposes,
    "batch": batching.primitive_batchers,
    "lower": lowering.lowerings,
}
PRIMS = list(_define.all_primitives)


def _rule(prim, table: str):
    if table == "impl":
        return prim.impl
    if table == "abstract_eval":
        return prim.abstract_eval
    return TABLES[table].get(prim)


def test_table_names_match_define():
    assert set(_define.TABLES) == {"impl", "abstract_eval", *TABLES}


def test_primitives_are_unique():
    names = [p.name for p in PRIMS]
    assert len(PRIMS) == len(set(map(id, PRIMS)))
    dupes = {n for n in names if names.count(n) > 1}
    assert not dupes, f"primitive names declared twice: {sorted(dupes)}"


@pytest.mark.parametrize("prim", PRIMS, ids=lambda p: p.name)
def test_every_rule_or_declared_gap(prim):
    gaps = _define.declared_gaps.get(prim, {})
    problems = []
    for table in _define.TABLES:
        rule = _rule(prim, table)
        reason = gaps.get(table)
        if reason is not None:
            if not isinstance(reason, str) or len(reason.strip()) < 10:
                problems.append(f"{table}: gap without a real reason ({reason!r})")
            if table not in ("impl",) and rule is not None:
                problems.append(f"{table}: declared a gap but also has a rule")
            continue
        if rule is None:
            problems.append(f"{table}: missing (no rule and no declared gap)")
        elif not callable(rule):
            problems.append(f"{table}: entry {rule!r} is not callable")
    assert not problems, f"{prim.name}: " + "; ".join(problems)


def test_gap_tables_are_known():
    for prim, gaps in _define.declared_gaps.items():
        assert set(gaps) <= set(_define.TABLES), (prim, gaps)


# Primitives deliberately not declared through def_primitive, and why.
NOT_DECLARED = {
    "custom_jvp_call": "every trace handles it in process_custom_jvp_call (custom rules "
                       "replace the rule tables); only its lowering is a table entry",
    "custom_vjp_call": "every trace handles it in process_custom_vjp_call (custom rules "
                       "replace the rule tables); only its lowering is a table entry",
}


# The rule tables' primitives as the engine registered them, read when this module is
# imported (before any test runs): primitives that tests define as users would, through
# jax.extend.core, register rules too and are not the engine's.
_TABLED_AT_IMPORT = [p for rules in TABLES.values() for p in rules]


def _all_primitive_objects():
    """Primitive objects anywhere in didax's modules or rule tables."""
    found = {}
    for name, mod in list(sys.modules.items()):
        if not name.startswith("didax"):
            continue
        for v in vars(mod).values():
            if isinstance(v, Primitive):
                found[id(v)] = v
    for p in _TABLED_AT_IMPORT:
        found[id(p)] = p
    return list(found.values())


def test_no_undeclared_primitives():
    """Every Primitive is declared through def_primitive (so this file checks its rules),
    unless listed in NOT_DECLARED with the reason."""
    declared = set(map(id, PRIMS))
    stray = sorted({p.name for p in _all_primitive_objects() if id(p) not in declared})
    unexplained = [n for n in stray if n not in NOT_DECLARED]
    assert not unexplained, f"primitives not declared with def_primitive: {unexplained}"
