"""Helpers of the RPC study's tests: run the measuring programs of studies/rpc (built by
`./testbed build` into build/studies/rpc/) and read what they print."""
from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from testbed import ROOT

BIN = ROOT / "build" / "studies" / "rpc"
CLIENTS = {"onc": "rpc-onc-client", "gsoap": "rpc-gsoap-client", "raw": "rpc-raw-pingpong"}
SERVERS = {"onc": "rpc-onc-server", "gsoap": "rpc-gsoap-server"}


def program(name: str) -> Path:
    p = BIN / name
    if not p.exists():
        pytest.fail(f"{p} is not built: run ./testbed build")
    return p


def sockdir() -> str:
    """A short private directory for socket files (a Unix socket path has 108 bytes)."""
    return tempfile.mkdtemp(prefix="tb-rpc-test-", dir="/tmp")


def client_argv(system: str, transport: str, size, calls: int, warmup: int, folder: Path, extra=()) -> list[str]:
    argv = [str(program(CLIENTS[system])), "--transport", transport, "--size", "null" if size is None else str(size),
            "--calls", str(calls), "--warmup", str(warmup), "--idle-ms", "50", "--dir", str(folder),
            "--raw-out", str(folder / "client.tsv"), "--timeout-s", "60"]
    if system in SERVERS:
        argv += ["--server", str(program(SERVERS[system])), "--server-raw-out", str(folder / "server.tsv")]
    return argv + list(extra)


def run(argv: list[str], timeout: float = 90) -> tuple[int, dict | None, str]:
    """Exit status, the JSON line printed last (or None), stderr."""
    p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    lines = [x for x in p.stdout.splitlines() if x.startswith("{")]
    return p.returncode, (json.loads(lines[-1]) if lines else None), p.stderr


def data_lines(path: Path) -> list[list[int]]:
    rows = path.read_text().splitlines()[1:]
    return [[int(v) for v in r.split()] for r in rows]


def shm_mappings(pid: int) -> int:
    """The process's mappings of the study's shared-memory segments (memfd "tb-rpc-shm")."""
    return sum("tb-rpc-shm" in line for line in Path(f"/proc/{pid}/maps").read_text().splitlines())


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))
