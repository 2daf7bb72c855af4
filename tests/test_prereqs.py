"""Two commands on a bare machine: `./testbed up` and `./testbed test` install the system
packages that are missing themselves when they run as root (apt-get update once, then apt-get
install -y of exactly those packages, non-interactively, a few lines of progress, the whole
output in a log) and go on; not as root they stop with one line giving the command. The
bootstrap (the `testbed` script) does the same for Python's venv module.

Nothing on the host is touched: a fake apt-get on PATH records how it was called and "installs"
a package by creating fake tools in a temporary bin folder and headers under a temporary
TESTBED_SYSROOT; PATH holds only the fakes; TESTBED_ROOT is a temporary folder, so logs and
build attempts land there; TESTBED_ASSUME_ROOT stands for the user id check."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import fakeapt
from fakeapt import PROVIDES
from testbed import ROOT

pytestmark = pytest.mark.timeout(300)

class Machine:
    """A pretend machine in tmp: its bin folder (PATH), sysroot and repository folder."""

    def __init__(self, tmp: Path, present: list[str]):
        self.tmp, self.bin, self.sysroot, self.repo = tmp, tmp / "bin", tmp / "sysroot", tmp / "repo"
        for d in (self.bin, self.sysroot, self.repo):
            d.mkdir()
        self.record = tmp / "apt-calls.jsonl"
        self.env = {"FAKE_BIN": str(self.bin), "FAKE_SYSROOT": str(self.sysroot),
                    "FAKE_APT_RECORD": str(self.record), "TESTBED_SYSROOT": str(self.sysroot),
                    "TESTBED_ROOT": str(self.repo), "HOME": str(tmp), "LANG": "C.UTF-8"}
        fakeapt.install_fakes(self.bin, sys.executable, getattr(sys, "_base_executable", sys.executable))
        for pkg in present:
            fakeapt.provide(pkg, self.bin, self.sysroot)

    def calls(self) -> list[dict]:
        return [json.loads(line) for line in self.record.read_text().splitlines()] if self.record.exists() else []

    def testbed(self, *argv: str, root: bool, **extra) -> subprocess.CompletedProcess:
        """The CLI with only the fakes on PATH."""
        env = {**self.env, "PATH": str(self.bin), "TESTBED_ASSUME_ROOT": "1" if root else "0", **extra}
        return subprocess.run([sys.executable, "-m", "testbed", *argv], cwd=self.repo, env=env, text=True,
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=120)


@pytest.fixture
def machine(tmp_path):
    return lambda present: Machine(tmp_path, present)


PRESENT = ["openjdk-17-jdk-headless", "g++", "make", "cmake", "zlib1g-dev"]
MISSING = sorted(set(PROVIDES) - set(PRESENT))          # maven, gsoap, libgsoap-dev, libssl-dev, ...
VERBS = {"up": ["up", "--no-locust"], "test": ["test", "-q"]}


@pytest.mark.parametrize("verb", VERBS)
def test_as_root_the_missing_packages_are_installed_without_questions_and_the_command_goes_on(machine, verb):
    m = machine(PRESENT)
    r = m.testbed(*VERBS[verb], root=True)
    calls = m.calls()
    assert [c["verb"] for c in calls] == ["update", "install"]                 # one update, one install
    assert calls[1]["packages"] == MISSING and calls[1]["yes"]                  # exactly what was missing
    assert all(c["frontend"] == "noninteractive" and c["stdin_devnull"] for c in calls)
    out = r.stdout.splitlines()
    progress = [line for line in out if line.startswith("prereqs:")]
    assert 3 <= len(progress) <= 6, out
    assert progress[-1] == "prereqs: every prerequisite is installed"
    assert f"{len(MISSING)} packages set up" in r.stdout
    assert "Setting up" not in r.stdout + r.stderr                              # apt's lines: in the log
    log = m.repo / ".testbed" / "prereqs" / "apt-get.log"
    assert "Setting up maven (1.0)" in log.read_text() and "Reading package lists" in log.read_text()
    went_on = out.index(progress[-1]) + 1
    assert any(line.startswith("build:") for line in out[went_on:]), out       # then it builds (fake cmake fails)
    assert r.returncode != 0 and "fake cmake" in r.stderr + r.stdout


@pytest.mark.parametrize("verb", VERBS)
def test_not_as_root_one_line_gives_the_exact_command_and_nothing_is_run(machine, verb):
    m = machine(PRESENT)
    r = m.testbed(*VERBS[verb], root=False)
    assert r.returncode != 0
    assert m.calls() == []
    lines = (r.stdout + r.stderr).strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("testbed: missing mvn, wsdl2h + soapcpp2 (gSOAP tools), gSOAP library")
    assert lines[0].endswith(f"; install: sudo apt-get update && sudo apt-get install -y {' '.join(MISSING)}")


def test_when_nothing_is_missing_apt_get_is_not_run(machine):
    m = machine(list(PROVIDES))
    r = m.testbed("up", "--no-locust", root=True)
    assert m.calls() == []
    assert "prereqs:" not in r.stdout and "build:" in r.stdout


def test_a_failing_apt_get_ends_with_its_last_lines_and_the_log_not_a_traceback(machine):
    m = machine(PRESENT)
    r = m.testbed("up", "--no-locust", root=True, FAKE_APT_FAIL="install")
    assert r.returncode != 0
    assert "apt-get install failed (exit 100)" in r.stderr and "E: Unable to locate package" in r.stderr
    assert str(m.repo / ".testbed" / "prereqs" / "apt-get.log") in r.stderr
    assert "Traceback" not in r.stderr and "build:" not in r.stdout


# ---- the bootstrap: python3 without its venv module ------------------------------------------

def bootstrap(m: Machine, root: bool) -> subprocess.CompletedProcess:
    """The `testbed` script, copied with pyproject.toml into the pretend repository, with the fake
    python3 and apt-get first on PATH. pip is aimed at a closed port, so it fails fast after the
    environment is made: what comes before it is under test, not PyPI."""
    shutil.copy(ROOT / "testbed", m.repo / "testbed")
    shutil.copy(ROOT / "pyproject.toml", m.repo / "pyproject.toml")
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower() and not k.startswith(("PIP_", "TESTBED_"))}
    env.update(m.env, PATH=f"{m.bin}:{os.environ['PATH']}", TESTBED_ASSUME_ROOT="1" if root else "0",
               PIP_CONFIG_FILE=os.devnull, PIP_INDEX_URL="http://127.0.0.1:9/simple", PIP_NO_CACHE_DIR="1",
               PIP_RETRIES="0", PIP_TIMEOUT="2")
    env.pop("TESTBED_ROOT")
    return subprocess.run(["bash", str(m.repo / "testbed"), "--help"], cwd=m.repo, env=env, text=True,
                          stdin=subprocess.DEVNULL, capture_output=True, timeout=240)


def venv_package() -> str:
    return f"python{sys.version_info[0]}.{sys.version_info[1]}-venv"


def test_bootstrap_as_root_installs_the_venv_module_and_makes_the_environment(machine):
    m = machine([])
    r = bootstrap(m, root=True)
    calls = m.calls()
    assert [(c["verb"], c["packages"]) for c in calls] == [("update", []), ("install", [venv_package()])]
    assert all(c["frontend"] == "noninteractive" and c["stdin_devnull"] and (c["verb"] == "update" or c["yes"])
               for c in calls)
    assert (m.repo / ".venv" / "bin" / "python").exists()
    said = [line for line in r.stderr.splitlines() if line.startswith("testbed:")]
    assert said[:3] == [f"testbed: first run: creating the Python environment in {m.repo / '.venv'} ...",
                        f"testbed: installing {venv_package()} with apt-get "
                        f"(log: {m.repo / '.testbed' / 'bootstrap' / 'apt-get.log'}) ...",
                        f"testbed: installing the CLI's Python packages (pip; log: "
                        f"{m.repo / '.testbed' / 'bootstrap' / 'pip.log'}) ..."]
    assert r.returncode != 0 and said[-1].startswith("testbed: pip failed; full log:")   # the closed index


def test_bootstrap_not_as_root_says_the_one_command_for_the_venv_module(machine):
    m = machine([])
    r = bootstrap(m, root=False)
    assert r.returncode != 0 and m.calls() == []
    assert r.stderr.strip().splitlines()[-1] == (
        f"testbed: missing {venv_package()}; install: sudo apt-get update && sudo apt-get install -y {venv_package()}")
    assert not (m.repo / ".venv").exists()


@pytest.mark.skipif(not shutil.which("java"), reason="this host's own java is what is read")
def test_java_with_tool_options_set_still_counts_as_present(monkeypatch, tmp_path):
    # such a JVM prints "Picked up JAVA_TOOL_OPTIONS: ..." before its version line: a user with
    # GC logging on for every JVM was told java was missing (and apt-get was run)
    from testbed import prereqs
    monkeypatch.setenv("JAVA_TOOL_OPTIONS", f"-Xlog:gc:file={tmp_path}/gc-%p.log")
    assert prereqs._java_ok()
