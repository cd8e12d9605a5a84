"""Server logging: escaped lines, and budgets for anything a client or a kernel can trigger.

The log belongs to the server. User text (programs, kernel output, `log` events, client ids)
never reaches INFO verbatim: at INFO the server logs its own facts (counts, sizes, slots,
session ids), and user text goes to DEBUG only, escaped, truncated and under a `LogBudget`.
`SafeFormatter` escapes every record's message, so no message can forge a log line with a
newline or a control character (tracebacks of the server's own errors stay multi-line), and
`RateLimit` caps the rate of everything below WARNING (e.g. connection churn) for the process.

Imports: the standard library only.
"""

from __future__ import annotations

import logging
import time
from typing import Any

_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_char(ch: str) -> str:
    if ch in _ESCAPES:
        return _ESCAPES[ch]
    code = ord(ch)
    unsafe = code < 0x20 or 0x7F <= code < 0xA0 or code in (0x2028, 0x2029)
    if unsafe or 0xD800 <= code < 0xE000:
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
    return ch


def escape(text: Any, limit: int | None = 200) -> str:
    """One printable line: control characters, line separators and lone surrogates escaped,
    cut at `limit` characters (None: no cut) with the number of characters left out."""
    text = str(text)
    cut = ""
    if limit is not None and len(text) > limit:
        cut, text = f"…(+{len(text) - limit} chars)", text[:limit]
    if text.isprintable() and "\\" not in text:
        return text + cut
    return "".join(_escape_char(ch) for ch in text) + cut


def cut(text: Any, limit: int = 200) -> str:
    """`text` cut at `limit` characters, saying how many were left out (escaping is the
    formatter's, so a message is escaped exactly once)."""
    text = str(text)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}…(+{len(text) - limit} chars)"


class SafeFormatter(logging.Formatter):
    """A Formatter whose message part is always one escaped line (at most 2,000 chars)."""

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 - logging's name
        record.message = escape(record.message, 2000)
        return super().formatMessage(record)


class LogBudget:
    """Rate limit (token bucket) plus a lifetime cap for log lines from one source.

    `allow()` says whether the next line may be logged; lines refused are counted, and
    `suppressed` says how many, for one summary line when the source goes away."""

    def __init__(self, rate_per_s: float = 2.0, burst: int = 10, cap: int = 50) -> None:
        self.rate, self.burst, self.cap = rate_per_s, burst, cap
        self._tokens = float(burst)
        self._last = time.monotonic()
        self.logged = 0
        self.suppressed = 0

    def allow(self) -> bool:
        now = time.monotonic()
        self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
        self._last = now
        if self.logged >= self.cap or self._tokens < 1:
            self.suppressed += 1
            return False
        self._tokens -= 1
        self.logged += 1
        return True


class RateLimit(logging.Filter):
    """Handler filter: records below WARNING share one token bucket (connection churn must not
    flood the log); when lines were dropped, the next one that passes says how many."""

    def __init__(self, rate_per_s: float = 50.0, burst: int = 200) -> None:
        super().__init__()
        self.budget = LogBudget(rate_per_s, burst, cap=1 << 62)
        self._reported = 0

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.WARNING:
            return True
        if not self.budget.allow():
            return False
        dropped = self.budget.suppressed - self._reported
        if dropped:
            self._reported = self.budget.suppressed
            record.msg = f"{record.msg} [{dropped} log lines suppressed before this one]"
        return True


def uvicorn_log_config(level: str) -> dict[str, Any]:
    """uvicorn's logging, with every handler formatted by SafeFormatter (access log included)."""
    fmt = "%(asctime)s %(levelname)s %(name)s: %(message)s"
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"safe": {"()": SafeFormatter, "fmt": fmt}},
        "filters": {"rate": {"()": RateLimit}},
        "handlers": {
            "default": {
                "class": "logging.StreamHandler",
                "formatter": "safe",
                "filters": ["rate"],
                "stream": "ext://sys.stderr",
            }
        },
        "root": {"handlers": ["default"], "level": level.upper()},
        "loggers": {
            "uvicorn": {"level": level.upper()},
            "uvicorn.error": {"level": level.upper()},
            "uvicorn.access": {"level": level.upper()},
        },
    }
