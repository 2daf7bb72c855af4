"""System packages the testbed needs, checked before anything is built or started."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

# (what is checked, how, the Debian 12 package that provides it)
REQUIREMENTS = [
    ("java 17+", lambda: _java_ok(), "openjdk-17-jdk-headless"),
    ("mvn", lambda: shutil.which("mvn"), "maven"),
    ("g++", lambda: shutil.which("g++"), "g++"),
    ("cmake", lambda: shutil.which("cmake"), "cmake"),
    ("make", lambda: shutil.which("make"), "make"),
    ("wsdl2h + soapcpp2 (gSOAP tools)", lambda: shutil.which("wsdl2h") and shutil.which("soapcpp2"), "gsoap"),
    ("gSOAP library", lambda: Path("/usr/include/stdsoap2.h").exists(), "libgsoap-dev"),
    ("OpenSSL headers (gSOAP links them)", lambda: Path("/usr/include/openssl/ssl.h").exists(), "libssl-dev"),
    ("zlib headers", lambda: Path("/usr/include/zlib.h").exists(), "zlib1g-dev"),
    ("rpcgen (RPC study)", lambda: shutil.which("rpcgen"), "rpcsvc-proto"),
    ("libtirpc headers (RPC study)", lambda: Path("/usr/include/tirpc/rpc/rpc.h").exists(), "libtirpc-dev"),
    ("haproxy", lambda: shutil.which("haproxy"), "haproxy"),
    ("wrk (benchmarks)", lambda: shutil.which("wrk"), "wrk"),
]


def _java_ok() -> bool:
    if not shutil.which("java"):
        return False
    r = subprocess.run(["java", "-version"], capture_output=True, text=True)
    first = (r.stderr or r.stdout).splitlines()[0] if (r.stderr or r.stdout) else ""
    try:
        major = int(first.split('"')[1].split(".")[0])
    except (IndexError, ValueError):
        return False
    return major >= 17


def missing() -> list[tuple[str, str]]:
    return [(what, pkg) for what, ok, pkg in REQUIREMENTS if not ok()]


def install_command(pkgs: list[str]) -> str:
    sudo = "" if os.geteuid() == 0 else "sudo "
    return f"{sudo}apt-get update && {sudo}apt-get install -y {' '.join(sorted(set(pkgs)))}"


def require() -> None:
    """Raise SystemExit with the exact command to run when anything is missing."""
    gone = missing()
    if gone:
        raise SystemExit("testbed: missing " + ", ".join(w for w, _ in gone) +
                         f"\n  install: {install_command([p for _, p in gone])}\n  (or: ./testbed setup)")


def setup(assume_yes: bool = False) -> int:
    gone = missing()
    if not gone:
        print("setup: every prerequisite is installed")
        return 0
    pkgs = sorted({p for _, p in gone})
    print("setup: missing " + ", ".join(w for w, _ in gone))
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        print(f"  run: {install_command(pkgs)}")
        return 1
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", *pkgs], check=True, env=env)
    still = missing()
    if still:
        print("setup: still missing after install: " + ", ".join(w for w, _ in still))
        return 1
    print("setup: done")
    return 0
