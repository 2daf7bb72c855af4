"""The parallel run's order: longest groups first, from the last whole run's seconds per group,
the committed table, or an estimate (tests/durations.py)."""
from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

import durations


class Item:
    def __init__(self, nodeid, group, marks=()):
        self.nodeid, self.group = nodeid, group
        self._marks = [SimpleNamespace(name=m) for m in marks]

    def iter_markers(self):
        return iter(self._marks)


@pytest.fixture
def tables(tmp_path, monkeypatch):
    local, committed = tmp_path / "local.json", tmp_path / "committed.json"
    monkeypatch.setattr(durations, "LOCAL", local)
    monkeypatch.setattr(durations, "COMMITTED", committed)
    monkeypatch.setattr(durations, "_seconds", {})
    monkeypatch.setattr(durations, "_group_of", {})
    return local, committed


def write(path, groups):
    path.write_text(json.dumps({"format": 1, "groups": groups}))


def test_the_local_table_wins_over_the_committed_one_and_unknown_groups_are_estimated(tables):
    local, committed = tables
    write(committed, {"a": 5.0, "b": 50.0})
    items = [Item("t/x.py::a1", "a"), Item("t/y.py::b1", "b"), Item("t/z.py::s", "s", ["slow", "stack"]),
             Item("t/w.py::k1", "k", ["stack"]), Item("t/w.py::k2", "k", ["stack"]),
             Item("t/u.py::u1", "u"), Item("t/u.py::u2", "u")]
    got = durations.estimates(items, lambda i: i.group)
    assert got == {"a": 5.0, "b": 50.0, "s": durations.SLOW_S, "k": durations.STACK_S + 2 * durations.PER_TEST_S,
                   "u": 2 * durations.PER_TEST_S}
    write(local, {"a": 80.0})
    assert durations.estimates(items, lambda i: i.group)["a"] == 80.0
    assert durations.estimates(items, lambda i: i.group)["b"] == 0.0 + 1 * durations.PER_TEST_S   # not in the local one


def test_a_broken_table_falls_back_to_the_next(tables):
    local, committed = tables
    local.write_text("{not json")
    write(committed, {"a": 7.0})
    assert durations.table() == {"a": 7.0}


def config(source="TESTPATHS", keyword="", markexpr="", lf=False):
    ArgsSource = SimpleNamespace(TESTPATHS="TESTPATHS", ARGS="ARGS")
    return SimpleNamespace(args_source=getattr(ArgsSource, source), ArgsSource=ArgsSource,
                           option=SimpleNamespace(keyword=keyword, markexpr=markexpr, lf=lf))


def test_reports_add_up_per_group_and_only_a_whole_passing_suite_is_saved(tables):
    local, _ = tables
    durations.estimates([Item("t/a.py::one", "a")], lambda i: i.group)
    for nodeid, d in [("t/a.py::one", 1.5), ("t/a.py::one", 0.5),            # setup, call (same process)
                      ("t/b.py::two@b", 3.0), ("t/b.py::three@b", 4.0),     # from xdist workers
                      ("t/c.py::no-group", 9.0)]:
        durations.note(SimpleNamespace(nodeid=nodeid, duration=d))
    assert not durations.save(config(), passed=False)
    assert not durations.save(config(keyword="interop"), passed=True)
    assert not durations.save(config(markexpr="not slow"), passed=True)
    assert not durations.save(config(source="ARGS"), passed=True)
    assert not local.exists()
    assert durations.save(config(), passed=True)
    groups = json.loads(local.read_text())["groups"]
    # (under ./testbed test this test's own setup report lands in the same table: left aside)
    assert (groups["a"], groups["b"]) == (2.0, 7.0) and not any("no-group" in g for g in groups)
