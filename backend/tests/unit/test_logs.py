"""Server logging (unit): one escaped line per record whatever the text, and budgets."""

from __future__ import annotations

import io
import logging

from app.logs import LogBudget, SafeFormatter, escape


def test_escape_makes_one_printable_line():
    forged = "ok\n2026-01-01 00:00:00,000 CRITICAL didax.main: forged\r\x1b[2J\u2028\ud800\\"
    out = escape(forged, None)
    assert "\n" not in out and "\r" not in out and "\x1b" not in out and "\u2028" not in out
    assert out.isprintable()
    assert out.startswith("ok\\n2026-01-01") and out.endswith("\\x1b[2J\\u2028\\ud800\\\\")
    assert escape("x" * 500, 10) == "x" * 10 + "…(+490 chars)"
    assert escape("plain text", 200) == "plain text"


def test_formatter_escapes_every_message_but_keeps_tracebacks():
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(SafeFormatter("%(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger("test.safe")
    logger.addHandler(handler)
    logger.propagate = False
    logger.warning("user said %s", "hi\nCRITICAL root: forged")
    try:
        raise ValueError("boom")
    except ValueError:
        logger.exception("server bug")
    lines = stream.getvalue().splitlines()
    assert lines[0] == "WARNING test.safe: user said hi\\nCRITICAL root: forged"
    assert lines[1] == "ERROR test.safe: server bug" and lines[2].startswith("Traceback")
    assert not any(line.startswith("CRITICAL") for line in lines)


def test_budget_rate_limits_and_caps(monkeypatch):
    now = [0.0]
    monkeypatch.setattr("app.logs.time.monotonic", lambda: now[0])
    budget = LogBudget(rate_per_s=1.0, burst=3, cap=5)
    assert [budget.allow() for _ in range(5)] == [True, True, True, False, False]
    now[0] += 2.0  # two tokens back
    assert [budget.allow() for _ in range(3)] == [True, True, False]
    now[0] += 100.0  # plenty of tokens, but the lifetime cap is reached
    assert budget.allow() is False
    assert (budget.logged, budget.suppressed) == (5, 4)


def test_rate_limit_drops_info_floods_and_says_how_many(monkeypatch):
    from app.logs import RateLimit

    now = [0.0]
    monkeypatch.setattr("app.logs.time.monotonic", lambda: now[0])
    limit = RateLimit(rate_per_s=10.0, burst=5)

    def record(level: int) -> logging.LogRecord:
        return logging.LogRecord("x", level, __file__, 1, "connection open", None, None)

    passed = [limit.filter(record(logging.INFO)) for _ in range(100)]
    assert sum(passed) == 5
    assert limit.filter(record(logging.WARNING))  # warnings always pass
    now[0] += 1.0
    late = record(logging.INFO)
    assert limit.filter(late) and "[95 log lines suppressed before this one]" in late.msg
