"""How long each test group takes, so that a parallel run hands the longest groups out first
(longest-processing-time-first: no worker is left with a long group while the others idle).

The seconds come from the last whole suite that passed here (`.testbed/test-durations.json`,
written at its end), else from the table committed beside this file (`durations.json`,
measured on the 2-core reference host: copy the local file over it after adding slow tests),
else from the group's markers (a new group). tests/README.md, "How the parallel run is split"."""
from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
COMMITTED = HERE / "durations.json"
LOCAL = HERE.parent / ".testbed" / "test-durations.json"

# a group neither table knows: an end-to-end run, a group that starts a stack, plain tests
SLOW_S, STACK_S, PER_TEST_S = 60.0, 15.0, 0.05

_group_of: dict[str, str] = {}      # node id -> group, where the ordering ran in this process
_seconds: dict[str, float] = {}     # group -> seconds measured in this session


def table() -> dict[str, float]:
    """group -> seconds: the local table if there is one, else the committed one."""
    for path in (LOCAL, COMMITTED):
        try:
            return {str(k): float(v) for k, v in json.loads(path.read_text())["groups"].items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue
    return {}


def estimate(marks: set[str], tests: int) -> float:
    """Seconds for a group no table knows, from its markers and its size."""
    if "slow" in marks:
        return SLOW_S
    return (STACK_S if marks & {"stack", "own_stack"} else 0.0) + PER_TEST_S * tests


def estimates(items, group) -> dict[str, float]:
    """group -> expected seconds for the collected items (group(item) names an item's group)."""
    known = table()
    marks: dict[str, set[str]] = {}
    tests: dict[str, int] = {}
    for item in items:
        g = group(item)
        _group_of[item.nodeid] = g
        marks.setdefault(g, set()).update(m.name for m in item.iter_markers())
        tests[g] = tests.get(g, 0) + 1
    return {g: known.get(g, estimate(marks[g], tests[g])) for g in tests}


def group_of(nodeid: str) -> str | None:
    """The group of a report's node id: pytest-xdist's controller sees `<id>@<group>`."""
    if nodeid in _group_of:
        return _group_of[nodeid]
    return nodeid.rsplit("@", 1)[1] if "@" in nodeid else None


def note(report) -> None:
    g = group_of(report.nodeid)
    if g is not None:
        _seconds[g] = _seconds.get(g, 0.0) + float(getattr(report, "duration", 0.0) or 0.0)


def whole_suite(config) -> bool:
    """The default selection: no -k, -m, --lf or explicit paths (a part would record a part)."""
    o = config.option
    return (config.args_source == config.ArgsSource.TESTPATHS and not getattr(o, "keyword", "")
            and not getattr(o, "markexpr", "") and not getattr(o, "lf", False))


def save(config, passed: bool, path: Path | None = None) -> bool:
    """Write this session's seconds per group (to LOCAL) when the whole suite ran and passed."""
    if not (passed and _seconds and whole_suite(config)):
        return False
    path = path or LOCAL
    path.parent.mkdir(parents=True, exist_ok=True)
    groups = {g: round(s, 1) for g, s in sorted(_seconds.items())}
    path.write_text(json.dumps({"format": 1, "groups": groups}, indent=1) + "\n")
    return True
