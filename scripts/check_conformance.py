#!/usr/bin/env python3
"""Runs the shared differential conformance corpus (open cases) against didax and fails
when a case of an area this repository claims to pass fails.

    python scripts/check_conformance.py --shared ../shared [--python .venv/bin/python]

It calls `<shared>/conformance/run.py check --impl didax` on `cases_open`, prints its
per-area table, then exits non-zero if any case in EXPECTED_AREAS fails, unless the case
is listed in PENDING (cases of those areas that need a feature still being built; the lead
empties that set as the features land). PENDING cases that pass are reported so they can
be removed from the set.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

# Areas whose every open case must pass: all fourteen of the corpus.
EXPECTED_AREAS = ["ad", "aot", "callbacks", "control_flow", "custom", "errors", "export",
                  "jaxpr", "jit", "numpy", "promotion", "pytree", "random", "vmap"]

# Cases of the expected areas that need jit or control flow (issue 3 / the control-flow
# work), allowed to fail until then. Empty it as the features land.
PENDING: set[str] = {
    # (none at the moment: jit and control flow have landed)
}


def parse_args(argv=None):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", default=os.path.join(root, "..", "shared"),
                    help="the shared directory holding conformance/ (default ../shared)")
    ap.add_argument("--python", default=sys.executable,
                    help="interpreter with didax installed, for the case subprocesses")
    ap.add_argument("--jobs", "-j", type=int, default=2)
    ap.add_argument("--only", help="comma-separated case id patterns (passed to run.py)")
    ap.add_argument("--json", help="also write run.py's JSON report here")
    return ap.parse_args(argv)


def run_corpus(args, report_path: str) -> int:
    conf = os.path.join(os.path.abspath(args.shared), "conformance")
    cmd = [args.python, os.path.join(conf, "run.py"), "check", "--impl", "didax",
           "--cases", os.path.join(conf, "cases_open"),
           "--golden", os.path.join(conf, "golden.json"),
           "--python", os.path.abspath(args.python), "--jobs", str(args.jobs),
           "--json", report_path, "--quiet"]
    if args.only:
        cmd += ["--only", args.only]
    return subprocess.run(cmd, check=False).returncode


def judge(report: dict) -> tuple[list[dict], list[str]]:
    """(failures that count, PENDING cases that now pass)."""
    failures, now_passing = [], []
    for case in report["cases"]:
        area = case["id"].split("/", 1)[0]
        if area not in EXPECTED_AREAS:
            continue
        if case["id"] in PENDING:
            if case["passed"]:
                now_passing.append(case["id"])
            continue
        if not case["passed"]:
            failures.append(case)
    return failures, now_passing


def main(argv=None) -> int:
    args = parse_args(argv)
    if not os.path.isdir(os.path.join(args.shared, "conformance")):
        print(f"check_conformance: no conformance corpus under {args.shared}", file=sys.stderr)
        return 2
    fd, report_path = tempfile.mkstemp(prefix="conformance_", suffix=".json")
    os.close(fd)
    rc = None
    try:
        rc = run_corpus(args, report_path)
        with open(report_path, encoding="utf-8") as fh:
            report = json.load(fh)
    except (OSError, ValueError) as e:
        print(f"check_conformance: run.py failed (rc={rc}): {e}", file=sys.stderr)
        return 2
    finally:
        if args.json and os.path.exists(report_path):
            os.replace(report_path, args.json)
        elif os.path.exists(report_path):
            os.unlink(report_path)
    failures, now_passing = judge(report)
    counted = {a: v for a, v in report["per_area"].items() if a in EXPECTED_AREAS}
    passed = sum(v["passed"] for v in counted.values())
    total = passed + sum(v["failed"] for v in counted.values())
    print(f"\nexpected areas ({', '.join(EXPECTED_AREAS)}): {passed}/{total} passed, "
          f"{len(PENDING)} pending")
    for cid in now_passing:
        print(f"  PENDING case now passes (remove it from PENDING): {cid}")
    for case in failures:
        print(f"  FAIL {case['id']}: {case['reason']}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
