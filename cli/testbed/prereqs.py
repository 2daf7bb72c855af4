"""System packages the testbed needs, checked before anything is built or started, and
installed when they can be.

ensure() (`./testbed up`, `test`, `build`, `bench`, `run`): when something is missing and this
runs as root where apt-get exists, it runs `apt-get update` once and `apt-get install -y` of the
missing packages, non-interactively (DEBIAN_FRONTEND=noninteractive, no stdin, existing config
files kept), prints a few lines of progress and keeps apt-get's whole output in
.testbed/prereqs/apt-get.log, then lets the command go on; otherwise it stops with one line
giving the exact command to run. `./testbed setup` does the same on request.

What is looked at can be redirected, which is how the tests run all this without touching the
host: tools (apt-get too) are found on PATH, headers under TESTBED_SYSROOT (default /), and
TESTBED_ASSUME_ROOT=1|0 replaces the check of the effective user id.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

from testbed import ROOT

LOG = ROOT / ".testbed" / "prereqs" / "apt-get.log"
# apt-get waits this long for another apt (e.g. a fresh machine's unattended upgrades)
APT = ["apt-get", "-o", "DPkg::Lock::Timeout=300"]
KEEP_CONFIG = ["-o", "Dpkg::Options::=--force-confdef", "-o", "Dpkg::Options::=--force-confold"]


def _header(rel: str):
    return lambda: (Path(os.environ.get("TESTBED_SYSROOT") or "/") / "usr/include" / rel).exists()


# (what is checked, how, the Debian 12 package that provides it)
REQUIREMENTS = [
    ("java 17+", lambda: _java_ok(), "openjdk-17-jdk-headless"),
    ("mvn", lambda: shutil.which("mvn"), "maven"),
    ("g++", lambda: shutil.which("g++"), "g++"),
    ("cmake", lambda: shutil.which("cmake"), "cmake"),
    ("make", lambda: shutil.which("make"), "make"),
    ("wsdl2h + soapcpp2 (gSOAP tools)", lambda: shutil.which("wsdl2h") and shutil.which("soapcpp2"), "gsoap"),
    ("gSOAP library", _header("stdsoap2.h"), "libgsoap-dev"),
    ("OpenSSL headers (gSOAP links them)", _header("openssl/ssl.h"), "libssl-dev"),
    ("zlib headers", _header("zlib.h"), "zlib1g-dev"),
    ("nlohmann/json headers (the C++ programs' JSON)", _header("nlohmann/json.hpp"), "nlohmann-json3-dev"),
    ("rpcgen (RPC study)", lambda: shutil.which("rpcgen"), "rpcsvc-proto"),
    ("libtirpc headers (RPC study)", _header("tirpc/rpc/rpc.h"), "libtirpc-dev"),
    ("haproxy", lambda: shutil.which("haproxy"), "haproxy"),
    ("wrk (benchmarks)", lambda: shutil.which("wrk"), "wrk"),
    # up --monitoring runs it; the tests check every metrics endpoint with its promtool. On a
    # host with systemd the package also starts its own Prometheus on :9090, which is why the
    # testbed's listens elsewhere (PROMETHEUS_PORT, docs/monitoring.md)
    ("prometheus + promtool (monitoring)", lambda: shutil.which("prometheus") and shutil.which("promtool"),
     "prometheus"),
]


class InstallError(RuntimeError):
    pass


def _java_ok() -> bool:
    if not shutil.which("java"):
        return False
    r = subprocess.run(["java", "-version"], capture_output=True, text=True)
    # the line naming the version: a JVM with JAVA_TOOL_OPTIONS set prints "Picked up ..." first
    line = next((ln for ln in (r.stderr or r.stdout or "").splitlines() if ' version "' in ln), "")
    try:
        major = int(line.split('"')[1].split(".")[0])
    except (IndexError, ValueError):
        return False
    return major >= 17


def is_root() -> bool:
    forced = os.environ.get("TESTBED_ASSUME_ROOT", "")
    return forced == "1" if forced in ("0", "1") else os.geteuid() == 0


def missing() -> list[tuple[str, str]]:
    return [(what, pkg) for what, ok, pkg in REQUIREMENTS if not ok()]


def install_command(pkgs: list[str], root: bool | None = None) -> str:
    sudo = "" if (is_root() if root is None else root) else "sudo "
    return f"{sudo}apt-get update && {sudo}apt-get install -y {' '.join(sorted(set(pkgs)))}"


def _apt(verb: str, args: list[str], log: Path) -> float:
    """One apt-get run, its output appended to the log; seconds taken. InstallError on failure,
    with the last lines of the log."""
    t0 = time.monotonic()
    with open(log, "a") as out:
        out.write(f"\n$ {' '.join(APT + args)}\n")
        out.flush()
        rc = subprocess.call(APT + args, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                             env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
    if rc != 0:
        tail = "\n".join("  " + line for line in log.read_text(errors="replace").splitlines()[-15:])
        raise InstallError(f"apt-get {verb} failed (exit {rc}); last lines of {log}:\n{tail}")
    return time.monotonic() - t0


def install(pkgs: list[str], log: Path = LOG, say=print) -> None:
    """apt-get update once, then install the packages; a few lines of progress."""
    log.parent.mkdir(parents=True, exist_ok=True)
    say(f"prereqs: apt-get update (log: {log}) ...", flush=True)
    took = _apt("update", ["update"], log)
    say(f"prereqs: apt-get update: done in {took:.0f}s", flush=True)
    say(f"prereqs: apt-get install -y {' '.join(pkgs)} (can take a few minutes) ...", flush=True)
    start = log.stat().st_size
    took = _apt("install", KEEP_CONFIG + ["install", "-y", *pkgs], log)
    with open(log, errors="replace") as f:
        f.seek(start)
        set_up = sum(line.startswith("Setting up ") for line in f)
    say(f"prereqs: apt-get install: done in {took:.0f}s, {set_up} packages set up", flush=True)


def _resolve(gone: list[tuple[str, str]], say=print) -> str | None:
    """Install what is missing if we can; None when all is there afterwards, else the one line
    saying what to do."""
    pkgs = sorted({p for _, p in gone})
    what = ", ".join(w for w, _ in gone)
    if not shutil.which("apt-get"):
        return (f"testbed: missing {what}; install them with your package manager "
                f"(Debian/Ubuntu: apt-get install -y {' '.join(pkgs)})")
    if not is_root():
        return f"testbed: missing {what}; install: {install_command(pkgs, root=False)}"
    say(f"prereqs: missing {what}: installing {' '.join(pkgs)} (root, apt-get, non-interactive)", flush=True)
    try:
        install(pkgs, say=say)
    except InstallError as e:
        return f"testbed: {e}"
    still = missing()
    if still:
        return ("testbed: still missing after apt-get install: " + ", ".join(w for w, _ in still)
                + f" (log: {LOG})")
    say("prereqs: every prerequisite is installed", flush=True)
    return None


def ensure() -> None:
    """Go on when every prerequisite is there or could be installed; else SystemExit with one
    line naming the command to run."""
    gone = missing()
    if gone:
        problem = _resolve(gone)
        if problem:
            raise SystemExit(problem)


def setup(assume_yes: bool = False) -> int:
    """`./testbed setup`: install what is missing (as root), or print the command."""
    gone = missing()
    if not gone:
        print("setup: every prerequisite is installed")
        return 0
    problem = _resolve(gone)
    if problem:
        print(problem)
        return 1
    return 0
