"""JAX as the oracle for a trace card's derivatives.

`Reference` traces the same program with real JAX (its jaxpr text must equal the card's)
and walks JAX's jaxpr beside the card's jaxpr data, keyed by the card's variable ids, so
every card variable has a JAX counterpart even inside shared jit bodies:

- values: JAX evaluating each equation (jit bodies and the taken cond branch inline);
- cotangents: `jax.grad` with respect to a zero probe added to every variable;
- tangents: `jax.jvp` of the function returning every intermediate (jvp of each prefix);
- contributions: `jax.vjp` of each equation alone, at JAX's operand values, applied to
  the total cotangent of its outputs.

`check_backward(card, ref)` and `check_tangents(card, ref)` compare a card with it.
"""

from __future__ import annotations

from collections import defaultdict

import jax
import numpy as np

CALLS = {"jit": "jaxpr", "closed_call": "call_jaxpr"}
RTOL, ATOL = 2e-4, 2e-5


def is_literal(a) -> bool:
    return type(a).__name__ == "Literal"


def bind(eqn, invals) -> list:
    """JAX evaluating one equation (as jax.core.eval_jaxpr does, custom rules included)."""
    out = eqn.primitive.bind(*invals, **eqn.primitive.get_bind_params(eqn.params))
    return list(out) if eqn.primitive.multiple_results else [out]


class Reference:
    """JAX's view of a card's program (flat args, the card's jaxpr data)."""

    def __init__(self, fn_jax, args, card):
        self.closed = jax.make_jaxpr(fn_jax)(*args)
        assert str(self.closed) == card["jaxpr"]["text"], (str(self.closed),
                                                           card["jaxpr"]["text"])
        self.jd, self.args = card["jaxpr"], list(args)
        self.taken: dict[str, int] = {}
        self.eqns: dict[str, tuple] = {}  # card eqn id -> (JAX eqn, card eqn data)
        self.values = self.run(self.args, {})

    def run(self, args, probes, env=None):
        """{card var id: value} of every variable (probes added where given)."""
        env = {} if env is None else env
        self._jaxpr(self.jd, self.closed.jaxpr, self.closed.consts, args, env, probes)
        return env

    def _jaxpr(self, jd, jx, consts, args, env, probes):
        def put(vd, x):
            p = probes.get(vd["id"])
            env[vd["id"]] = x if p is None else x + p

        for vd, x in zip(jd["constvars"], consts):
            put(vd, x)
        for vd, x in zip(jd["invars"], args):
            put(vd, x)
        for ed, e in zip(jd["eqns"], jx.eqns):
            self.eqns[ed["id"]] = (e, ed)
            invals = [a.val if is_literal(a) else env[ad["id"]]
                      for a, ad in zip(e.invars, ed["invars"])]
            for vd, x in zip(ed["outvars"], self._eqn(ed, e, invals, env, probes)):
                put(vd, x)
        return [a.val if is_literal(a) else env[ad["id"]]
                for a, ad in zip(jx.outvars, jd["outvars"])]

    def _eqn(self, ed, e, invals, env, probes):
        name = e.primitive.name
        if name in CALLS:
            closed = e.params[CALLS[name]]
            return self._jaxpr(ed["subjaxprs"][0]["jaxpr"], closed.jaxpr, closed.consts,
                               invals, env, probes)
        if name == "cond":
            if ed["id"] not in self.taken:
                self.taken[ed["id"]] = int(np.asarray(invals[0]))
            i = self.taken[ed["id"]]
            branch = e.params["branches"][i]
            sub = next(s for s in ed["subjaxprs"] if s["param"] in (f"branches[{i}]",))
            return self._jaxpr(sub["jaxpr"], branch.jaxpr, branch.consts, invals[1:], env,
                               probes)
        return bind(e, invals)

    # ------------------------------------------------------------------------------------

    def cotangents(self, ids, outs_seed):
        """{var id: JAX's cotangent} for the card variables ids, from the output seeds."""
        probes0 = {i: np.zeros_like(np.asarray(self.values[i])) for i in ids}

        def f(probes):
            env = self.run(self.args, probes)
            outs = [env[o["id"]] for o in self.jd["outvars"] if not o.get("literal")]
            return sum(jax.numpy.sum(o * s) for o, s in zip(outs, outs_seed) if s is not None)

        return jax.grad(f)(probes0)

    def tangents(self, active, tangents):
        """{var id: JAX's tangent} of every variable, for the inputs' tangents."""
        def f(*xs):
            return self.run(list(xs), {})

        _, tans = jax.jvp(f, tuple(self.args), tuple(tangents))
        return tans

    def contributions(self, eqn_id, cts):
        """[(operand var id, JAX's contribution)] of one equation alone, given the total
        cotangents of every variable."""
        e, ed = self.eqns[eqn_id]
        invals = [a.val if is_literal(a) else self.values[ad["id"]]
                  for a, ad in zip(e.invars, ed["invars"])]
        pos = [i for i, ad in enumerate(ed["invars"])
               if not ad.get("literal") and ad["id"] in cts]

        def one(*xs):
            args = list(invals)
            for i, x in zip(pos, xs):
                args[i] = x
            return bind(e, args)

        outs, pull = jax.vjp(one, *[invals[i] for i in pos])
        out_cts = [cts.get(vd["id"], np.zeros_like(np.asarray(o)))
                   for vd, o in zip(ed["outvars"], outs)]
        return [(ed["invars"][i]["id"], c) for i, c in zip(pos, pull(out_cts))]


# ----------------------------------------------------------------------------------------
# Comparisons
# ----------------------------------------------------------------------------------------


def close(summary, want, what=""):
    """A ValueSummary equals an array (in full when it fits the preview, else its head and
    statistics)."""
    want = np.asarray(want, np.float64)
    assert list(summary["shape"]) == list(want.shape), (what, summary["shape"], want.shape)
    head = np.asarray(summary["preview"], np.float64)
    np.testing.assert_allclose(head, want.reshape(-1)[:len(head)], RTOL, ATOL, err_msg=what)
    if want.size:
        np.testing.assert_allclose(summary["norm"], np.linalg.norm(want), RTOL, ATOL,
                                   err_msg=what)


def backward_steps(card):
    return [s for s in card["timeline"] if s["phase"] == "backward"]


def check_backward(card, ref, seeds, inputs_grad):
    """Every contribution equals JAX's VJP of its equation alone; partial sums run; every
    final sum equals JAX's cotangent; the inputs' cotangents equal jax.grad."""
    cts = ref.cotangents(list(card["cotangents"]), seeds)
    for vid, s in card["cotangents"].items():
        close(s, cts[vid], f"cotangent of {vid}")
    received = defaultdict(list)
    per_eqn = defaultdict(list)
    for step in backward_steps(card):
        per_eqn[step["eqn_id"]].append(step)
    for step in backward_steps(card):
        assert step["var_ids"] == list(dict.fromkeys(c["var_id"] for c in
                                                     step["contributions"]))
        by_var = defaultdict(list)
        for c in step["contributions"]:
            assert c["from_eqn"] == step["eqn_id"]
            received[c["var_id"]].append(c)
            by_var[c["var_id"]].append(c["value"])
        if len(per_eqn[step["eqn_id"]]) == 1:
            _check_against_eqn(step, by_var, ref, cts)
    for eid, steps in per_eqn.items():
        if len(steps) > 1 and eid in ref.eqns and ref.eqns[eid][0].primitive.name == "scan":
            _check_loop_sums(eid, steps, ref, cts)
    for vid, cs in received.items():
        assert [c["k"] for c in cs] == list(range(1, len(cs) + 1)), vid
        assert {c["of"] for c in cs} == {len(cs)}, vid
        close(cs[-1]["partial"], cts[vid], f"final partial sum of {vid}")
    for vd, g in zip(card["jaxpr"]["invars"], inputs_grad):
        close(card["cotangents"][vd["id"]], g, f"grad of {vd['id']}")
    return received


def _check_against_eqn(step, by_var, ref, cts):
    eid = step["eqn_id"]
    if eid is None or eid not in ref.eqns:
        return
    e, _ = ref.eqns[eid]
    if e.primitive.name in CALLS or e.primitive.name == "cond":
        return  # boundary steps pass totals on (checked as totals)
    want = defaultdict(list)
    for vid, c in ref.contributions(eid, cts):
        if np.asarray(c).dtype != jax.dtypes.float0:
            want[vid].append(np.asarray(c, np.float64))
    for vid, got in by_var.items():
        assert len(got) == len(want[vid]), (eid, vid, len(got), len(want[vid]))
        order = sorted(range(len(got)), key=lambda i: got[i]["norm"] or 0.0)
        expect = sorted(want[vid], key=lambda w: float(np.linalg.norm(w)))
        for i, w in zip(order, expect):
            close(got[i], w, f"contribution {eid} -> {vid}")


def _check_loop_sums(eid, steps, ref, cts):
    """A loop's per-iteration contributions to each operand add up to JAX's VJP of the
    whole loop equation (each iteration's own is checked against a Python loop)."""
    got = defaultdict(float)
    for step in steps:
        for c in step["contributions"]:
            got[c["var_id"]] = got[c["var_id"]] + _full(c["value"])
    want = defaultdict(float)
    for vid, c in ref.contributions(eid, cts):
        if np.asarray(c).dtype != jax.dtypes.float0:
            want[vid] = want[vid] + np.asarray(c, np.float64)
    assert set(got) <= set(want), (eid, set(got), set(want))
    for vid, total in got.items():
        np.testing.assert_allclose(total, want[vid], RTOL, ATOL, err_msg=f"{eid}->{vid}")


def _full(summary):
    assert not summary["truncated"], "loop checks use arrays that fit the preview"
    return np.asarray(summary["preview"], np.float64).reshape(summary["shape"])


def check_tangents(card, ref, tangents):
    """Every recorded tangent equals JAX's jvp of the prefix that computes it."""
    tans = ref.tangents(None, tangents)
    assert card["tangents"], "the card records tangents"
    for vid, s in card["tangents"].items():
        close(s, tans[vid], f"tangent of {vid}")
