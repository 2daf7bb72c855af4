"""A running HAProxy, driven through its runtime API (the stats socket) and read through its
stats page: server states, admin states (drain, maintenance, ready), the server-state file a
seamless reload keeps, and waiting until a condition holds."""
from __future__ import annotations

import csv
import io
import socket
import time
from pathlib import Path

from testbed.haproxy.config import HaproxyError


class Runtime:
    """HAProxy's runtime API over the stats socket."""

    def __init__(self, sock: Path):
        self.sock = sock

    def command(self, cmd: str, timeout: float = 5.0) -> str:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            s.connect(str(self.sock))
            s.sendall(cmd.encode() + b"\n")
            chunks = []
            while True:
                data = s.recv(65536)
                if not data:
                    break
                chunks.append(data)
        return b"".join(chunks).decode(errors="replace")

    def available(self) -> bool:
        try:
            self.command("show info", timeout=1.0)
            return True
        except OSError:
            return False

    def stats(self) -> list[dict[str, str]]:
        """`show stat` rows of every server (not FRONTEND/BACKEND lines)."""
        text = self.command("show stat").lstrip("# ")
        rows = list(csv.DictReader(io.StringIO(text)))
        return [r for r in rows if r.get("svname") not in ("FRONTEND", "BACKEND", None)]

    def servers(self, backend: str) -> dict[str, dict[str, str]]:
        return {r["svname"]: r for r in self.stats() if r["pxname"] == backend}

    def set_state(self, backend: str, server: str, state: str, settle: float = 10.0) -> None:
        """Set a server's admin state. Right after a reload the socket can still be answered by
        the old worker, soft-stopping, whose proxies say "Proxy is disabled.": asked again until
        the new worker answers, for at most `settle` seconds."""
        deadline = time.monotonic() + settle
        while True:
            out = self.command(f"set server {backend}/{server} state {state}").strip()
            if not out:
                return
            if not out.startswith("Proxy is disabled") or time.monotonic() >= deadline:
                raise HaproxyError(f"set server {backend}/{server} state {state}: {out}")
            time.sleep(0.1)

    def save_state(self, path: Path) -> None:
        path.write_text(self.command("show servers state"))


def stats_csv(url: str, headers: dict[str, str] | None = None, timeout: float = 3.0) -> list[dict[str, str]]:
    """Every row of HAProxy's stats page as CSV (url: the stats page, e.g. http://haproxy:8404/),
    FRONTEND and BACKEND lines included; OSError when it does not answer."""
    import urllib.request
    req = urllib.request.Request(url.rstrip("/") + "/;csv;norefresh", headers=headers or {})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        text = r.read().decode().lstrip("# ")
    return list(csv.DictReader(io.StringIO(text)))


def idle(rows: dict[str, dict[str, str]], servers) -> bool:
    """No request running on, or queued for, any of these servers (rows: svname -> stats row)."""
    return all(int(rows[s]["scur"] or 0) == 0 and int(rows[s]["qcur"] or 0) == 0 for s in servers if s in rows)


def wait_for(predicate, timeout: float, what: str, interval: float = 0.2):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = predicate()
            if last:
                return last
        except OSError:
            pass
        time.sleep(interval)
    raise HaproxyError(f"timed out after {timeout:.0f}s waiting for {what}")
