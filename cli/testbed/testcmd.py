"""`./testbed test`: build everything, then JUnit (Maven), ctest and pytest — pytest in parallel
worker processes (pytest-xdist), `--quick` for the inner loop (tests/README.md)."""
from __future__ import annotations

import argparse
import os
import subprocess
import sys

from testbed import ROOT

# --quick: the inner loop, no test that starts a stack of its own or runs an experiment end
# to end (markers in pyproject.toml; tests/README.md)
QUICK_MARKERS = "not slow and not own_stack"


def add_arguments(s: argparse.ArgumentParser) -> None:
    s.add_argument("--quick", action="store_true",
                   help="the inner loop (about 2.5 min): build what changed without the JUnit run, then "
                        f"the tests that need no stack of their own and no restart (pytest -m \"{QUICK_MARKERS}\")")
    s.add_argument("--workers", type=int, metavar="N",
                   default=int(os.environ.get("TESTBED_TEST_WORKERS", "4")),
                   help="pytest worker processes (pytest-xdist; default 4, or TESTBED_TEST_WORKERS: "
                        "the tests mostly wait for JVMs, timers and sockets, so more than the cores pay); "
                        "0: one process, as plain pytest")
    s.add_argument("pytest_args", nargs=argparse.REMAINDER)


def split_options(words: list[str]) -> tuple[list[str], list[str]]:
    """`./testbed test`'s own leading options (--quick, --workers N, --workers=N), and the rest
    (pytest's, options too: argparse's REMAINDER refuses a leading option)."""
    own: list[str] = []
    while words:
        if words[0] == "--quick" or words[0].startswith("--workers="):
            own, words = own + words[:1], words[1:]
        elif words[0] == "--workers" and len(words) > 1:
            own, words = own + words[:2], words[2:]
        else:
            break
    return own, words


def pytest_argv(args) -> list[str]:
    """pytest's arguments: the user's, after -n WORKERS --dist loadgroup (pytest-xdist: the
    tests of one file on one worker, in the order tests/conftest.py gives the groups: slow
    ones first) unless the user chose -n or -p no:xdist,
    and -m QUICK_MARKERS for --quick (joined with the user's own -m)."""
    user = list(args.pytest_args)
    argv: list[str] = []
    chose = any(a == "-n" or a.startswith(("-n", "--numprocesses")) for a in user) or \
        any(a == "no:xdist" or a == "-pno:xdist" for a in user)
    if not chose and args.workers != 0:
        argv += ["-n", str(args.workers), "--dist", "loadgroup", "--no-loadscope-reorder"]
    if args.quick:
        if "-m" in user:
            i = user.index("-m")
            user[i + 1] = f"({user[i + 1]}) and {QUICK_MARKERS}"
        else:
            argv += ["-m", QUICK_MARKERS]
    return argv + user


def pytest_env() -> dict[str, str]:
    """The environment of the pytest run. Python's bytecode cache stays on: without it
    (PYTHONDONTWRITEBYTECODE) every worker compiles, and pytest rewrites, every test module
    again, about 25 s of CPU each; the cache then goes to .testbed/pycache, not the tree."""
    env = dict(os.environ)
    if env.pop("PYTHONDONTWRITEBYTECODE", None):
        env.setdefault("PYTHONPYCACHEPREFIX", str(ROOT / ".testbed" / "pycache"))
    return env


def main(args) -> int:
    from testbed import build, prereqs
    prereqs.ensure()
    try:
        build.native()
        build.java(run_tests=not args.quick)
    except build.BuildError as e:
        print(f"testbed: {e}", file=sys.stderr)
        return 1
    rc = subprocess.call(["ctest", "--test-dir", "build", "--output-on-failure"], cwd=ROOT)
    if rc != 0:
        print("testbed: ctest failed", file=sys.stderr)
        return rc
    return subprocess.call([sys.executable, "-m", "pytest", *pytest_argv(args)], cwd=ROOT, env=pytest_env())
