"""Ctrl-C during `./testbed run rpc`: the finished measurements stay, the report is made from
them, and nothing is left behind -- no measuring program, no server, no socket directory."""
from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from testbed import ROOT

# one worker for the RPC programs' tests (pytest -n): the Ctrl-C test checks that no /tmp/tb-rpc-*
# socket folder is left, which another test's running programs would hold
pytestmark = pytest.mark.xdist_group("rpc-programs")


def _leftovers(marker: str) -> list[str]:
    """Processes whose command line names this test's folder (the programs get --raw-out in it)."""
    ps = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout.splitlines()
    return [line for line in ps if marker in line and "pytest" not in line and "ps -eo" not in line]


@pytest.mark.slow
def test_ctrl_c_keeps_the_finished_points_and_leaves_nothing_behind(tmp_path):
    socket_dirs_before = set(Path("/tmp").glob("tb-rpc-*"))
    results = tmp_path / "results"
    run = subprocess.Popen([str(ROOT / "testbed"), "run", "rpc", "--quick", "--results", str(results)], cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:                   # a few points done, one under way
            samples = list(results.glob("rpc-*/samples.jsonl"))
            if samples and len(samples[0].read_text().splitlines()) >= 3:
                break
            time.sleep(0.2)
        time.sleep(0.3)
        run.send_signal(signal.SIGINT)
        out, _ = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert run.returncode == 130, out
    folder = next(results.glob("rpc-*"))
    exp = json.loads((folder / "experiment.json").read_text())
    assert exp["status"] == "interrupted"
    kept = (folder / "samples.jsonl").read_text().splitlines()
    assert len(kept) >= 3 and all(json.loads(x)["status"] == "ok" for x in kept)
    summary = json.loads((folder / "summary.json").read_text())
    assert any(x["what"] == "no valid measurement" for x in summary["lost"])
    assert (folder / "report.html").is_file()
    time.sleep(0.5)                                          # a killed server's exit is asynchronous
    assert _leftovers(str(tmp_path)) == []
    assert set(Path("/tmp").glob("tb-rpc-*")) - socket_dirs_before == set()
