"""The study's long-running worker process (cli/testbed/studies/jvm_worker.py), exercised with
a small Python program that speaks the same line protocol: answers, errors, a hang (timeout,
then a fresh process), and a stop that leaves nothing running."""
from __future__ import annotations

import os
import sys

import pytest

from testbed.studies.runner import PointError
from testbed.studies.jvm_worker import JvmWorker

SERVE = r"""
import json, sys, time, os
for line in sys.stdin:
    cmd = line.split()
    if cmd == ["quit"]:
        break
    if cmd[0] == "hang":
        time.sleep(60)
    elif cmd[0] == "die":
        sys.exit(3)
    elif cmd[0] == "fail":
        print(json.dumps({"error": "IllegalStateException: wrong checksum"}))
    else:
        print(json.dumps({"pid": os.getpid(), "args": cmd}))
    sys.stdout.flush()
"""


@pytest.fixture
def worker(tmp_path):
    script = tmp_path / "serve.py"
    script.write_text(SERVE)
    w = JvmWorker([sys.executable, str(script)], log=tmp_path / "worker.log")
    yield w
    w.stop()


def test_one_process_answers_every_question(worker):
    a = worker.ask(["message", "--n", "1"], timeout=10)
    b = worker.ask(["writers"], timeout=10)
    assert a["args"] == ["message", "--n", "1"] and a["pid"] == b["pid"] and worker.starts == 1


def test_an_error_answer_is_a_point_error(worker):
    with pytest.raises(PointError, match="java: IllegalStateException: wrong checksum"):
        worker.ask(["fail"], timeout=10)


def test_a_hang_times_out_and_the_next_question_gets_a_fresh_process(worker):
    first = worker.ask(["x"], timeout=10)["pid"]
    with pytest.raises(PointError, match="timeout"):
        worker.ask(["hang"], timeout=1)
    with pytest.raises(ProcessLookupError):
        os.kill(first, 0)
    assert worker.ask(["x"], timeout=10)["pid"] != first and worker.starts == 2


def test_stop_ends_the_process(worker):
    pid = worker.ask(["x"], timeout=10)["pid"]
    worker.stop()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_a_worker_that_dies_says_so_and_the_next_question_restarts_it(worker):
    with pytest.raises(PointError, match=r"exited \(3\) before answering"):
        worker.ask(["die"], timeout=10)
    assert worker.ask(["x"], timeout=10)["args"] == ["x"] and worker.starts == 2
