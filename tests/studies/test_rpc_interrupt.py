"""Ctrl-C during `./testbed run rpc`: the finished measurements stay, the report is made from
them, and nothing is left behind -- no measuring program, no server, no socket directory."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import psutil
import pytest

from polling import until
from testbed import ROOT

# one worker for the RPC programs' tests (pytest -n): the Ctrl-C test checks that no /tmp/tb-rpc-*
# socket folder is left, which another test's running programs would hold
pytestmark = pytest.mark.xdist_group("rpc-programs")


def _leftovers(marker: str, but: tuple[int, ...] = ()) -> list[str]:
    """Processes whose command line names this test's folder (the programs get --raw-out in it),
    other than this one and those in `but`. (The folder is under pytest's, so a line's naming
    "pytest" tells nothing: the pid does.)"""
    ps = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout.splitlines()[1:]
    return [line for line in ps if marker in line and int(line.split()[0]) not in (os.getpid(), *but)]


def _running(marker: str, runner: int) -> bool:
    """A program of the run (a child of the runner naming this test's folder) is running: read
    from /proc, fast enough to see a point's programs, which run for a fraction of a second."""
    try:
        children = psutil.Process(runner).children(recursive=True)
    except psutil.Error:
        return False
    for child in children:
        try:
            if marker in " ".join(child.cmdline()):
                return True
        except psutil.Error:
            pass
    return False


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
        until("a point's programs running", lambda: run.poll() is not None or _running(str(tmp_path), run.pid),
              timeout=60, interval=0.002)
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
    # a killed server's exit is asynchronous: gone within a bound, not after a guessed pause
    until("no program of the run left", lambda: _leftovers(str(tmp_path)) == [], timeout=10)
    assert set(Path("/tmp").glob("tb-rpc-*")) - socket_dirs_before == set()
