"""Locust 2.x `--csv` files: the column names (the only place they are spelled) and readers.

Locust writes, for `--csv PREFIX --csv-full-history`:
  PREFIX_stats.csv          final totals per request name + an "Aggregated" row (rewritten each second)
  PREFIX_stats_history.csv  appended every ~1 s: one row per request name + one "Aggregated" row;
                            Timestamp is int(epoch s); "Total Request Count"/"Total Failure Count"
                            are cumulative; with --csv-full-history the percentile columns are
                            Locust's *current* response times (a sliding ~10 s window)
  PREFIX_failures.csv, PREFIX_exceptions.csv

Readers are tolerant of a file cut mid-line (an interrupted run): a row that does not parse is
dropped and counted, never fatal.
"""
from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path

# --- file names inside runs/<run_id>/ ----------------------------------------------------------
STATS_FILE = "locust_stats.csv"
HISTORY_FILE = "locust_stats_history.csv"
FAILURES_FILE = "locust_failures.csv"
EXCEPTIONS_FILE = "locust_exceptions.csv"

# --- stats_history.csv --------------------------------------------------------------------------
TIMESTAMP = "Timestamp"
USER_COUNT = "User Count"
TYPE = "Type"
NAME = "Name"
REQUESTS_PER_S = "Requests/s"
FAILURES_PER_S = "Failures/s"
P50 = "50%"
P95 = "95%"
P99 = "99%"
TOTAL_REQUEST_COUNT = "Total Request Count"
TOTAL_FAILURE_COUNT = "Total Failure Count"
TOTAL_MEDIAN_RESPONSE_TIME = "Total Median Response Time"
TOTAL_AVERAGE_RESPONSE_TIME = "Total Average Response Time"

# --- stats.csv ----------------------------------------------------------------------------------
REQUEST_COUNT = "Request Count"
FAILURE_COUNT = "Failure Count"
MEDIAN_RESPONSE_TIME = "Median Response Time"
AVERAGE_RESPONSE_TIME = "Average Response Time"
MIN_RESPONSE_TIME = "Min Response Time"
MAX_RESPONSE_TIME = "Max Response Time"

# --- failures.csv / exceptions.csv --------------------------------------------------------------
METHOD = "Method"
ERROR = "Error"
OCCURRENCES = "Occurrences"
COUNT = "Count"
MESSAGE = "Message"

AGGREGATED = "Aggregated"  # the Name of the all-requests row
NOT_AVAILABLE = "N/A"      # Locust's percentile value when a row has no requests

HISTORY_REQUIRED = (TIMESTAMP, USER_COUNT, NAME, TOTAL_REQUEST_COUNT, TOTAL_FAILURE_COUNT)


@dataclass(frozen=True)
class HistoryRow:
    """One "Aggregated" row of stats_history.csv."""

    timestamp: float
    users: int
    total_requests: int
    total_failures: int
    p50_ms: float | None
    p95_ms: float | None
    p99_ms: float | None


@dataclass
class History:
    """The Aggregated rows of a stats_history.csv in file order, and what could not be read."""

    rows: list[HistoryRow]
    dropped_rows: int = 0          # rows that did not parse (a truncated last line, typically)
    named_rows: int = 0            # per-request-name rows seen (present with --csv-full-history)


class CsvFormatError(ValueError):
    """A Locust CSV lacks a column this module needs."""


def _number(text: str | None) -> float | None:
    if text is None:
        return None
    text = text.strip()
    if not text or text == NOT_AVAILABLE:
        return None
    value = float(text)  # ValueError on a cut number such as "12." is fine; "1e" is not
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def _required(row: dict, column: str) -> float:
    value = _number(row.get(column))
    if value is None:
        raise ValueError(f"empty {column}")
    return value


def parse_history(lines) -> History:
    """Parse stats_history.csv content (an iterable of text lines) into its Aggregated rows."""
    reader = csv.DictReader(lines)
    header = reader.fieldnames or []
    missing = [c for c in HISTORY_REQUIRED if c not in header]
    if missing:
        raise CsvFormatError(f"{HISTORY_FILE}: missing column(s) {', '.join(missing)}")
    history = History(rows=[])
    for raw in reader:
        if None in raw or any(raw.get(c) is None for c in header):  # wrong field count: cut line
            history.dropped_rows += 1
            continue
        if raw[NAME] != AGGREGATED:
            history.named_rows += 1
            continue
        try:
            history.rows.append(HistoryRow(
                timestamp=_required(raw, TIMESTAMP),
                users=int(_required(raw, USER_COUNT)),
                total_requests=int(_required(raw, TOTAL_REQUEST_COUNT)),
                total_failures=int(_required(raw, TOTAL_FAILURE_COUNT)),
                p50_ms=_number(raw.get(P50)),
                p95_ms=_number(raw.get(P95)),
                p99_ms=_number(raw.get(P99)),
            ))
        except ValueError:
            history.dropped_rows += 1
    return history


def read_history(path: Path) -> History:
    """Read a stats_history.csv file (see parse_history)."""
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        return parse_history(f)


def read_rows(path: Path) -> list[dict[str, str]]:
    """Read any of the other Locust CSVs as a list of dicts; cut rows are dropped."""
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        reader = csv.DictReader(f)
        return [r for r in reader if None not in r and all(v is not None for v in r.values())]


def aggregated_totals(stats_rows: list[dict[str, str]]) -> dict[str, float | None]:
    """The "Aggregated" row of stats.csv as numbers (requests, failures, median/avg/max ms)."""
    for row in stats_rows:
        if row.get(NAME) == AGGREGATED:
            try:
                return {
                    "requests": _number(row.get(REQUEST_COUNT)),
                    "failures": _number(row.get(FAILURE_COUNT)),
                    "median_ms": _number(row.get(MEDIAN_RESPONSE_TIME)),
                    "average_ms": _number(row.get(AVERAGE_RESPONSE_TIME)),
                    "max_ms": _number(row.get(MAX_RESPONSE_TIME)),
                }
            except ValueError:
                return {}
    return {}


def failure_summary(failure_rows: list[dict[str, str]], limit: int = 5) -> list[dict[str, object]]:
    """The most frequent failures: [{name, error, occurrences}], largest first."""
    out = []
    for row in failure_rows:
        try:
            occurrences = int(float(row.get(OCCURRENCES) or 0))
        except ValueError:
            continue
        out.append({"name": row.get(NAME, ""), "error": row.get(ERROR, ""), "occurrences": occurrences})
    out.sort(key=lambda r: -r["occurrences"])
    return out[:limit]
