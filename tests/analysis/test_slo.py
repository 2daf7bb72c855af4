"""Service levels as a file (analysis/slo.py): each level parsed or refused with the fix named, judged
with its interval — met, missed, not decided — on a result folder made here (data/make_handmade),
written as JUnit XML any CI shows as tests, and `./testbed compare --slo` exits 1 on a miss, 2 on a
file it cannot use; `./testbed run --slo` refuses such a file before anything runs."""
from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from analysis import cli as analysis_cli
from analysis import slo

sys.path.insert(0, str(Path(__file__).resolve().parent / "data"))
from make_handmade import T0, experiment, plateau, run  # noqa: E402

NOISE = (0.02, -0.01, 0.015, -0.02, 0.0, 0.01, -0.015)


def _folder(path: Path, x: int = 300) -> Path:
    meta = {"kind": "clones", "path": 5, "backend": "axis", "op": "ping",
            "tiers": {"front": 1, "clone": 1, "axis": 1, "gsoap": 0}, "client_mode": "pool", "pool_size": 8,
            "demands": {}}
    steps = [dict(s, host=100.0, seconds=16, noise=NOISE) for s in plateau(x, users=(4, 16, 32))]
    run(path, "pool-c1-a1-r0", T0, meta, steps)
    experiment(path, "clones", "clones", ["pool-c1-a1-r0"])
    return path


def _levels(tmp_path: Path, text: str) -> Path:
    f = tmp_path / "slo.toml"
    f.write_text(text)
    return f


@pytest.mark.parametrize("level, says", [
    ("p99 < 200 s", "p99 is in ms, not s"),
    ("p99 below 200", "is not a level"),
    ("throughput >= 300/s at 100/s", "'at' is for percentiles and errors"),
    ("errors < 1 ms", "errors is in %, not ms"),
])
def test_a_level_it_cannot_read_names_the_fix(tmp_path, level, says):
    with pytest.raises(slo.SloError, match=says):
        slo.load(_levels(tmp_path, f'[levels]\n"*" = ["{level}"]\n'))


def test_a_file_without_levels_or_with_other_tables_is_refused(tmp_path):
    with pytest.raises(slo.SloError, match="no \\[levels\\] table"):
        slo.load(_levels(tmp_path, 'x = 1\n'))
    with pytest.raises(slo.SloError, match="unknown table or key 'other'"):
        slo.load(_levels(tmp_path, '[levels]\n"*" = ["p99 < 1"]\n[other]\n'))
    with pytest.raises(slo.SloError, match="not TOML"):
        slo.load(_levels(tmp_path, '[levels\n'))


def test_each_level_is_judged_with_its_interval_and_written_as_junit(tmp_path):
    folder = _folder(tmp_path / "a")
    levels = slo.load(_levels(tmp_path, '[levels]\n"*" = ["throughput >= 250/s", "throughput >= 400/s", '
                                        '"throughput >= 300/s", "errors < 5 %"]\n"/seg/5" = ["p99 < 100 ms at 500/s"]\n'))
    shown, missed = slo.check_folder(folder, levels)
    got = {r["level"]: r for r in json.loads((folder / slo.FILE_JSON).read_text())[0]["levels"]}
    assert got["throughput >= 250/s"]["verdict"] == "met"            # 294/s, its interval above 250
    assert got["throughput >= 400/s"]["verdict"] == "missed"
    assert got["throughput >= 300/s"]["verdict"] == "not decided"    # the interval straddles 300
    assert got["p99 < 100 ms at 500/s"]["verdict"] == "missed" and "never reached 500/s" in got["p99 < 100 ms at 500/s"]["why"]
    assert missed and "[missed] pool-c1-a1-r0: throughput >= 400/s" in shown
    suite = ET.parse(folder / slo.FILE_JUNIT).getroot().find("testsuite")
    assert suite.get("tests") == str(len(got)) and suite.get("failures") == "2" and suite.get("skipped") == "1"
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert cases["pool-c1-a1-r0: throughput >= 400/s"].find("failure") is not None
    assert cases["pool-c1-a1-r0: throughput >= 300/s"].find("skipped") is not None


def test_compare_judges_every_folder_and_exits_1_on_a_miss_2_on_a_bad_file(tmp_path, capsys):
    a, b = _folder(tmp_path / "a"), _folder(tmp_path / "b")
    ok = _levels(tmp_path, '[levels]\n"*" = ["throughput >= 250/s"]\n')
    assert analysis_cli.main(["compare", str(a), str(b), "-o", str(tmp_path / "c1"), "--slo", str(ok)]) == 0
    assert ET.parse(tmp_path / "c1" / slo.FILE_JUNIT).getroot().findall("testsuite")[1].get("failures") == "0"
    miss = _levels(tmp_path, '[levels]\n"pool-c1-a1" = ["throughput >= 400/s"]\n')
    assert analysis_cli.main(["compare", str(a), str(b), "-o", str(tmp_path / "c2"), "--slo", str(miss)]) == 1
    assert "[missed]" in capsys.readouterr().out
    bad = _levels(tmp_path, '[levels]\n"*" = ["fast"]\n')
    assert analysis_cli.main(["compare", str(a), str(b), "--slo", str(bad)]) == 2
    assert "is not a level" in capsys.readouterr().err


def test_run_refuses_a_levels_file_it_cannot_use_before_anything_runs(tmp_path, capsys):
    from testbed.cli import main as testbed_main
    assert testbed_main(["run", "clones", "--slo", str(tmp_path / "none.toml")]) == 2
    assert "--slo" in capsys.readouterr().err
