"""A JVM kept running for a whole study run: a Java program in `serve` mode reads one
command per stdin line and answers each with one JSON line on stdout. The JIT then stays
warm from one measurement to the next, and the JVM's start-up (seconds, with Axis2) is paid
once. Bounded: every question has a timeout; on timeout or death the process group is
killed and the next question starts a fresh JVM. Its stderr goes to a log file.

    w = JvmWorker(["java", "-Xmx3g", "-jar", jar, "serve"], log=folder / "jvm.log")
    data = w.ask(["message", "--op", "sendInts", "--n", "1000"], timeout=120)
    w.stop()
"""
from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import subprocess
import time
from pathlib import Path

from testbed.studies.runner import PointError


class JvmWorker:
    def __init__(self, argv: list[str], log: Path, env: dict | None = None):
        self.argv, self.log, self.env = argv, Path(log), env
        self.proc: subprocess.Popen | None = None
        self.starts = 0
        self._eof = False

    def _start(self) -> None:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        err = open(self.log, "ab")
        try:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=err, env={**os.environ, **(self.env or {})},
                                         start_new_session=True)
        finally:
            err.close()
        self.starts += 1

    def ask(self, args: list[str], timeout: float) -> dict:
        """One command's JSON answer; PointError on timeout, death or an {"error": ...}."""
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        p = self.proc
        try:
            p.stdin.write((" ".join(args) + "\n").encode())
            p.stdin.flush()
        except OSError:
            self.stop()
            raise PointError(f"the JVM worker is gone; see {self.log}") from None
        line = self._read_line(timeout)
        if line is None:
            try:
                code = p.wait(timeout=5) if self._eof else p.poll()
            except subprocess.TimeoutExpired:
                code = None
            self.stop()
            if code is not None:
                raise PointError(f"the JVM worker exited ({code}) before answering; see {self.log}")
            raise PointError(f"timeout: the JVM worker gave no answer in {timeout:.0f} s; stopped")
        try:
            data = json.loads(line)
        except ValueError:   # e.g. the JVM's own "Terminating due to java.lang.OutOfMemoryError"
            self.stop()
            raise PointError(f"the JVM worker printed {line[:200]!r}, not JSON; stopped") from None
        if "error" in data or "usage_error" in data:
            raise PointError(f"java: {data.get('error') or data.get('usage_error')}")
        return data

    def _read_line(self, timeout: float) -> str | None:
        """The next line on stdout; None on timeout or end of output (then _eof is set)."""
        p = self.proc
        self._eof = False
        deadline = time.monotonic() + timeout
        buf = b""
        with selectors.DefaultSelector() as sel:
            sel.register(p.stdout, selectors.EVENT_READ)
            while time.monotonic() < deadline:
                if not sel.select(timeout=min(1.0, max(0.0, deadline - time.monotonic()))):
                    if p.poll() is not None:
                        return None
                    continue
                chunk = os.read(p.stdout.fileno(), 1 << 16)
                if not chunk:
                    self._eof = True
                    return None
                buf += chunk
                if b"\n" in buf:
                    return buf.split(b"\n", 1)[0].decode(errors="replace")
        return None

    def stop(self) -> None:
        p, self.proc = self.proc, None
        if p is None:
            return
        with contextlib.suppress(OSError):
            p.stdin.write(b"quit\n")
            p.stdin.flush()
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(p.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                p.wait(timeout=5)
        for f in (p.stdin, p.stdout):
            with contextlib.suppress(OSError):
                f.close()
