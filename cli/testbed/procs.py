"""Start, probe and stop the processes of the local stack.

Every process is started in its own session (so a terminal's Ctrl-C does not reach it),
logs to a file, and is identified by pid *and* start time, so that `down` never signals a
process that merely reused a pid.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, asdict
from pathlib import Path


class ProcError(RuntimeError):
    """A process could not be started or did not become healthy; the text names the fix."""


@dataclass
class Proc:
    name: str            # e.g. "gsoap-1"
    pid: int
    start_ticks: int     # /proc/<pid>/stat field 22: tells a reused pid apart
    port: int | None
    log: str
    argv: list[str]

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "Proc":
        return cls(**d)

    def alive(self) -> bool:
        return _start_ticks(self.pid) == self.start_ticks


def _start_ticks(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # the command name may hold spaces and parentheses: split after the last ')'
    fields = stat[stat.rindex(")") + 2:].split()
    if fields[0] == "Z":          # a zombie has exited already
        return None
    return int(fields[19])


def port_free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def wait_port_free(port: int, timeout: float = 10.0, host: str = "127.0.0.1") -> bool:
    """Whether the port can be bound within timeout: a process that just exited may leave its
    connections closing a few seconds (FIN_WAIT: a scraper that held one open has not closed
    its end yet), during which nothing can listen there."""
    deadline = time.monotonic() + timeout
    while not port_free(port, host):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.2)
    return True


FREE_PORT_RANGE = (12000, 18999)   # below the kernel's ephemeral range (outgoing
                                    # connections) and the local stack's replica ports
_handed_out: set[int] = set()       # ports free_port() gave this process (maybe not bound yet)


def free_port_range() -> tuple[int, int]:
    """FREE_PORT_RANGE, or TESTBED_FREE_PORTS=LOW-HIGH inside it: the test suite gives each
    pytest-xdist worker a slice of its own (tests/conftest.py), so that two workers never pick
    the same port for servers that bind it only later."""
    raw = os.environ.get("TESTBED_FREE_PORTS", "")
    try:
        low, high = (int(x) for x in raw.split("-"))
    except ValueError:
        return FREE_PORT_RANGE
    if FREE_PORT_RANGE[0] <= low < high <= FREE_PORT_RANGE[1]:
        return low, high
    return FREE_PORT_RANGE


def worker_port_slice(worker: str, count: str) -> tuple[int, int] | None:
    """Worker gwN of `count` pytest-xdist workers: the N-th of `count` equal slices of
    FREE_PORT_RANGE (for TESTBED_FREE_PORTS); None outside a parallel run."""
    if not worker.startswith("gw") or not worker[2:].isdigit() or not count.isdigit() or int(count) < 2 \
            or int(worker[2:]) >= int(count):
        return None
    low, high = FREE_PORT_RANGE
    size = (high - low + 1) // int(count)
    first = low + int(worker[2:]) * size
    return first, first + size - 1


def free_port(host: str = "127.0.0.1") -> int:
    """A port free now, for tests and ad-hoc servers. Picked at random in free_port_range(),
    not by the kernel: a kernel-picked port comes from the ephemeral range, where the next
    outgoing connection may take it before the server binds it. Never one this process was
    given before: a stack's configuration takes several before any of them is bound."""
    import random
    low, high = free_port_range()
    for _ in range(200):
        port = random.randint(low, high)
        if port not in _handed_out and port_free(port, host):
            _handed_out.add(port)
            return port
    raise ProcError(f"no free port in {low}-{high} on {host}")


def pause(ps: list["Proc"], paused: bool, tree: bool = False) -> bool:
    """SIGSTOP (paused) or SIGCONT each process that is still the one started (Proc.alive), with
    tree also its children: a paused process takes no CPU and answers nothing. True when one of
    them was stopped and now runs again. A stopped process does not act on a SIGTERM before its
    SIGCONT: resume what was paused before stopping it."""
    import psutil
    resumed = False
    for p in ps:
        if not p.alive():
            continue
        try:
            root = psutil.Process(p.pid)
            for proc in [root, *(root.children(recursive=True) if tree else [])]:
                was_stopped = proc.status() == psutil.STATUS_STOPPED
                proc.send_signal(signal.SIGSTOP if paused else signal.SIGCONT)
                resumed |= was_stopped and not paused
        except psutil.Error:
            continue
    return resumed


def parse_cpus(text: str) -> set[int] | None:
    """'0', '1-3', '0,2' -> a CPU set; '' -> None (no pinning). ValueError names the form."""
    if not text.strip():
        return None
    cpus: set[int] = set()
    try:
        for part in text.split(","):
            lo, _, hi = part.strip().partition("-")
            cpus.update(range(int(lo), int(hi or lo) + 1))
    except ValueError:
        raise ValueError(f"expected a CPU list like 0 or 1-3 or 0,2, got {text!r}") from None
    have = os.sched_getaffinity(0)
    if not cpus <= have:
        raise ValueError(f"CPUs {sorted(cpus - have)} are not available here (have {sorted(have)})")
    return cpus


def entering(groups: list[str], cpus: set[int] | None = None):
    """A preexec_fn that puts the child into the cgroups whose cgroup.procs files are given and
    pins it to cpus, between fork and exec (only os calls: no locks in the child); None when
    there is nothing to do."""
    groups = list(groups)
    if not groups and not cpus:
        return None

    def before_exec() -> None:
        for f in groups:
            fd = os.open(f, os.O_WRONLY)
            try:
                os.write(fd, str(os.getpid()).encode())
            finally:
                os.close(fd)
        if cpus:
            os.sched_setaffinity(0, cpus)
    return before_exec


def start(name: str, argv: list[str], log: Path, env: dict[str, str] | None = None,
          port: int | None = None, cwd: Path | None = None, cpus: set[int] | None = None,
          cgroups: list[str] | None = None) -> Proc:
    """Start argv in its own session, output to log; pinned to cpus (every thread it will
    ever make inherits the set) when given; inside the cgroups whose cgroup.procs files are
    given (its CPU quota group, quotas.py), entered between fork and exec so that the program
    never runs outside them."""
    if not Path(argv[0]).exists() and not _which(argv[0]):
        raise ProcError(f"{name}: {argv[0]} not found; build it first: ./testbed build")
    log.parent.mkdir(parents=True, exist_ok=True)
    full_env = dict(os.environ)
    full_env.update(env or {})
    groups = list(cgroups or [])
    before_exec = entering(groups, cpus)
    with open(log, "ab") as out:
        try:
            p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                 env=full_env, cwd=cwd, start_new_session=True,
                                 preexec_fn=before_exec)
        except subprocess.SubprocessError as e:
            where = f"its CPU quota group ({', '.join(groups)})" if groups else f"CPUs {sorted(cpus or ())}"
            raise ProcError(f"{name}: could not be started in {where}: {e}") from None
    ticks = None
    for _ in range(50):
        ticks = _start_ticks(p.pid)
        if ticks is not None:
            break
        if p.poll() is not None:
            break
        time.sleep(0.01)
    if ticks is None:
        raise ProcError(f"{name} exited at once; see {log}")
    return Proc(name=name, pid=p.pid, start_ticks=ticks, port=port, log=str(log), argv=argv)


def _which(cmd: str) -> bool:
    from shutil import which
    return which(cmd) is not None


def http_ok(url: str, timeout: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return 200 <= r.status < 300
    except (urllib.error.URLError, OSError, ValueError):
        return False


def wait_healthy(proc: Proc, url: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not proc.alive():
            raise ProcError(f"{proc.name} exited while starting; last lines of {proc.log}:\n"
                            + tail(Path(proc.log)))
        if http_ok(url):
            return
        time.sleep(0.2)
    raise ProcError(f"{proc.name} not healthy at {url} after {timeout:.0f}s; see {proc.log}")


def stop(proc: Proc, timeout: float = 10.0, sig: int = signal.SIGTERM) -> bool:
    """Signal the process (never a pid that was reused); escalate to SIGKILL after timeout.
    Returns True when it was running."""
    if not proc.alive():
        return False
    try:
        os.kill(proc.pid, sig)
    except ProcessLookupError:
        return False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not proc.alive():
            _reap(proc.pid)
            return True
        time.sleep(0.05)
    try:
        os.kill(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    for _ in range(100):
        if not proc.alive():
            break
        time.sleep(0.05)
    _reap(proc.pid)
    return True


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def exit_code(proc: Proc) -> int | None:
    """A child's exit status once it has ended (negative: the signal that ended it); None while
    it runs, or when it is not our child or was already reaped."""
    if proc.alive():
        return None
    try:
        pid, status = os.waitpid(proc.pid, os.WNOHANG)
    except ChildProcessError:
        return None
    return os.waitstatus_to_exitcode(status) if pid else None


def tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"
