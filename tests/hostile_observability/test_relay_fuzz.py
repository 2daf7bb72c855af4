"""The relay parser's fuzz harness (fuzz_relay.py, docs/fuzzing.md), bounded, in every suite run:
at most 15 s or 50,000 inputs from its seeds, a smoke run; a finding fails the test with
libFuzzer's report and leaves the input in the test's folder. Longer runs: the command in
fuzz_relay.py."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from testbed import ROOT

pytest.importorskip("atheris", reason="atheris is a test dependency (pyproject.toml): ./testbed installs it")
HARNESS = Path(__file__).with_name("fuzz_relay.py")


def test_a_bounded_fuzz_of_the_relays_parser_finds_nothing(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "cli"), os.environ.get("PYTHONPATH", "")])}
    r = subprocess.run([sys.executable, str(HARNESS), "-max_total_time=15", "-runs=50000",
                        f"-artifact_prefix={tmp_path}/", str(tmp_path / "corpus")],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    report = (r.stdout + r.stderr)[-4000:]
    assert r.returncode == 0, report
    assert "Done" in report and not list(tmp_path.glob("crash-*")), report
