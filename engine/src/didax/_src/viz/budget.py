"""The size budget of a trace card: a card whose JSON is over `max_card_bytes` is cut until
it fits, each cut announced by a `card_trimmed` notice, never by failing the run. In order,
until the card fits:

1. the heatmaps of contributions' values and partial sums;
2. the contributions themselves (backward steps keep their equation and variables);
3. every other heatmap (values, tangents, cotangents, loop records, outputs);
4. the structured data of stage programs and stage texts beyond `STAGE_TEXT` characters;
5. equations beyond a limit: the top-level equations after the first K (with everything
   nested in them) are summarised in the jaxpr text (`… N more equations (card trimmed) …`)
   and their values, tangents, cotangents, timeline steps and loop records are dropped.

Sizes are measured once per component and per equation (not by re-serialising the whole
card at every try). May import nothing from didax.
"""

from __future__ import annotations

import json
from collections import Counter

DEFAULT_MAX_CARD_BYTES = 2 << 20
STAGE_TEXT = 64 * 1024


def size(x) -> int:
    return len(json.dumps(x, separators=(",", ":"), allow_nan=False))


def fit(card: dict, max_bytes: int = DEFAULT_MAX_CARD_BYTES) -> dict:
    """Cuts card (in place) to max_bytes of JSON; returns it."""
    total = size(card)
    if total <= max_bytes:
        return card
    for cut in (_contribution_heatmaps, _contributions, _heatmaps, _stage_data):
        message = cut(card)
        if message:
            _notice(card, message)
            total = size(card)
            if total <= max_bytes:
                return card
    _equations(card, max_bytes, total)
    return card


def _notice(card: dict, message: str, eqn_id: str | None = None) -> None:
    card.setdefault("notices", []).append(
        {"kind": "card_trimmed", "message": message, "eqn_id": eqn_id})


def _backward(card: dict) -> list[dict]:
    return [s for s in card["timeline"] if s.get("contributions")]


def _contribution_heatmaps(card: dict) -> str | None:
    n = 0
    for step in _backward(card):
        for c in step["contributions"]:
            for key in ("value", "partial"):
                if c[key].get("heatmap") is not None:
                    c[key]["heatmap"] = None
                    n += 1
    return f"card trimmed to its size budget: {n} contribution heatmaps left out" if n \
        else None


def _contributions(card: dict) -> str | None:
    n = 0
    for step in _backward(card):
        n += len(step["contributions"])
        step["contributions"] = []
    return (f"card trimmed to its size budget: the {n} contributions of the backward steps "
            "left out (cotangents keep the totals)") if n else None


def _summaries(card: dict):
    for key in ("values", "tangents", "cotangents"):
        yield from card.get(key, {}).values()
    yield from card.get("outputs", [])
    for loop in card.get("loops", []):
        for it in loop["forward"] + loop["backward"]:
            yield from it["carry"] + it["outputs"]


def _heatmaps(card: dict) -> str | None:
    n = 0
    for s in _summaries(card):
        if s.get("heatmap") is not None:
            s["heatmap"] = None
            n += 1
    return f"card trimmed to its size budget: {n} heatmaps left out" if n else None


def _stage_data(card: dict) -> str | None:
    cut = []
    for stage in card["stages"]:
        if stage.get("jaxpr") is not None:
            stage["jaxpr"] = None
            cut.append(stage["name"])
        if len(stage["text"]) > STAGE_TEXT:
            stage["text"] = stage["text"][:STAGE_TEXT] + "\n… (card trimmed)\n"
            stage["rows"] = [r for r in stage.get("rows", []) if r["row"] <
                             stage["text"].count("\n")]
            cut.append(stage["name"])
    names = ", ".join(dict.fromkeys(cut))
    return f"card trimmed to its size budget: stage programs shown as text only ({names})" \
        if cut else None


# ----------------------------------------------------------------------------------------
# Cutting equations
# ----------------------------------------------------------------------------------------


def _ids(eqn: dict, eqn_ids: set, var_ids: set) -> None:
    eqn_ids.add(eqn["id"])
    var_ids.update(v["id"] for v in eqn["outvars"])
    for sub in eqn["subjaxprs"]:
        j = sub["jaxpr"]
        var_ids.update(v["id"] for v in j["invars"] + j["constvars"])
        for e in j["eqns"]:
            _ids(e, eqn_ids, var_ids)


def _equations(card: dict, max_bytes: int, total: int) -> None:
    """Keeps the first K top-level equations, K as large as fits."""
    eqns = card["jaxpr"]["eqns"]
    owned = []
    for e in eqns:
        eids, vids = set(), set()
        _ids(e, eids, vids)
        owned.append((eids, vids))
    steps = Counter()
    for st in card["timeline"]:
        steps[st["eqn_id"]] += size(st)
    per_eqn = [size(e) + sum(size(card[k][v]) for k in ("values", "tangents", "cotangents")
                             for v in vids if v in card.get(k, {}))
               + sum(steps[i] for i in eids) for e, (eids, vids) in zip(eqns, owned)]
    room = max_bytes - (total - sum(per_eqn)) - 512
    keep, used = 0, 0
    while keep < len(eqns) and used + per_eqn[keep] <= room:
        used += per_eqn[keep]
        keep += 1
    _drop(card, keep, owned)


def _drop(card: dict, keep: int, owned: list) -> None:
    jd = card["jaxpr"]
    dropped = jd["eqns"][keep:]
    if not dropped:
        return
    eids = set().union(*(o[0] for o in owned[keep:]))
    vids = set().union(*(o[1] for o in owned[keep:]))
    kinds = Counter(e["primitive"] for e in dropped).most_common(4)
    text_end = jd["eqns"][keep - 1]["span"]["end"] if keep else jd["text"].find("let") + 3
    jd["text"] = (jd["text"][:text_end] + f"\n    … {len(dropped)} more equations (card "
                  f"trimmed) …\n  in (…) }}")
    jd["eqns"] = jd["eqns"][:keep]
    for key in ("values", "tangents", "cotangents"):
        card[key] = {k: v for k, v in card.get(key, {}).items() if k not in vids}
    card["timeline"] = [dict(st, index=i) for i, st in enumerate(
        st for st in card["timeline"] if st["eqn_id"] not in eids)]
    for st in card["timeline"]:
        st["var_ids"] = [v for v in st["var_ids"] if v not in vids]
        if st.get("contributions"):
            st["contributions"] = [c for c in st["contributions"] if c["var_id"] not in vids]
    card["loops"] = [lp for lp in card.get("loops", []) if lp["eqn_id"] not in eids]
    most = ", ".join(f"{n} {p}" for p, n in kinds)
    _notice(card, f"card trimmed to its size budget: the first {keep} of {keep + len(dropped)}"
                  f" equations are shown; the other {len(dropped)} ({most}, …) are left out",
            jd["eqns"][-1]["id"] if keep else None)
