"""The harness of the two overhead benchmarks (cli/testbed/bench/overhead.py): the order that
reverses from group to group, ratios taken within a group, the figure of a set of ratios, and
the two files it writes."""
from __future__ import annotations

import json

import pytest

from testbed.bench import overhead


def _run(group: int, condition: str, rps: float | None) -> dict:
    return {"group": group, "condition": condition, "rps": rps}


def test_the_order_reverses_from_one_group_to_the_next():
    orders = [overhead.alternating(("a", "b", "c"), i) for i in range(4)]
    assert orders[0] == ["a", "b", "c"] and orders[1] == ["c", "b", "a"]
    assert orders[2] == orders[0] and orders[3] == orders[1]


def test_each_ratio_is_taken_against_the_reference_of_its_own_group():
    # the reference speeds up 10 % a group; the condition costs 2 % in each
    rows = []
    for g, base in enumerate((1000.0, 1100.0, 1210.0)):
        rows += [_run(g, "x", base * 0.98), _run(g, "ref", base)]
    per = overhead.ratios_to(rows, "ref", lambda r: r["group"])
    assert list(per["x"]) == [0, 1, 2]
    assert [x for xs in per["x"].values() for x in xs] == pytest.approx([0.98, 0.98, 0.98])
    assert [x for xs in per["ref"].values() for x in xs] == pytest.approx([1.0, 1.0, 1.0])


def test_a_group_without_its_reference_gives_no_ratio_and_several_reference_runs_give_their_median():
    rows = [_run(0, "x", 500.0),                                             # no reference here
            _run(1, "ref", 900.0), _run(1, "ref", 1000.0), _run(1, "ref", 1300.0), _run(1, "x", 990.0),
            _run(2, "ref", 1000.0), _run(2, "x", None)]                      # a run without a value
    per = overhead.ratios_to(rows, "ref", lambda r: r["group"])
    assert per["x"] == {1: pytest.approx([0.99])}


def test_a_ratio_can_be_of_any_value_of_the_runs():
    rows = [{"group": 0, "condition": "ref", "p95_ms": 10.0}, {"group": 0, "condition": "x", "p95_ms": 12.0}]
    assert overhead.ratios_to(rows, "ref", lambda r: r["group"], "p95_ms")["x"][0] == pytest.approx([1.2])


def test_the_figure_is_the_median_of_the_rounds_medians_with_every_ratio_and_their_mean():
    # one round with many low ratios must not outweigh two rounds with one ratio each
    fig = overhead.figure([[0.9, 0.9, 0.9], [1.0], [1.02]])
    assert fig["rounds"] == [0.9, 1.0, 1.02] and fig["median"] == 1.0
    assert fig["ratios"] == [0.9, 0.9, 0.9, 1.0, 1.02]
    assert fig["mean"] == pytest.approx(0.944)
    low, high = fig["ci95"]
    assert low < fig["mean"] < high


def test_a_figure_needs_a_ratio_and_its_interval_two():
    assert overhead.figure([]) is None and overhead.figure([[], []]) is None
    one = overhead.figure([[0.97]])
    assert one["median"] == 0.97 and one["mean"] is None and one["ci95"] is None


def test_the_median_leaves_out_what_was_not_measured():
    assert overhead.median([3.0, None, 1.0, 2.0]) == 2.0
    assert overhead.median([None]) is None and overhead.median([]) is None


def test_the_results_are_overhead_json_and_a_markdown_page_with_the_table(tmp_path):
    table = overhead.write(tmp_path, {"ratio_to_off": {"x": 0.98}}, "Some overhead", "How it was measured.",
                           ["| a | b |", "|---|---|", "| 1 | 2 |"])
    assert table == "| a | b |\n|---|---|\n| 1 | 2 |"
    assert json.loads((tmp_path / "overhead.json").read_text()) == {"ratio_to_off": {"x": 0.98}}
    assert (tmp_path / "overhead.md").read_text() == f"# Some overhead\n\nHow it was measured.\n\n{table}\n"
