"""CPU quotas of the local stack: one cgroup per replica, the way compose's `cpus` gives each
container a CFS quota — the emulation of one machine per tier. The knobs are compose's:
CPUS_<TIER> in .env (cores per replica, 0 = none); an experiment's tiers_cpus sets them.

Where the groups live, one parent per stack (its state dir), so two stacks never share one:

    v1: <cpu mount>/testbed/<stack>/<replica>      cpu.cfs_period_us 100000, cpu.cfs_quota_us
        <cpuacct mount>/testbed/<stack>/<replica>  (when cpuacct is a hierarchy of its own:
                                                    the replica's exact CPU time, cpuacct.usage)
    v2: <cgroup2 mount>/testbed/<stack>/<replica>  cpu.max "50000 100000", cpu.stat usage_usec

`testbed` is TESTBED_CGROUP (a cgroup path, default /testbed; as a non-root user on cgroup v2
the `testbed` group inside the user@UID.service cgroup systemd delegates, when this process runs
there). A replica's process enters its group between fork and exec (procs.start), so it never
runs outside it. Groups are made only for replicas that have a quota: with every CPUS_* at 0 no
cgroup right is needed. Only creation and removal are here; reading CPU accounting is the
sampler's (a group's usage file: usage_file()).
"""
from __future__ import annotations

import errno
import hashlib
import os
import re
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from testbed.stack import StackError

PERIOD_US = 100_000          # the CFS period compose uses too (docker: cpu.cfs_period_us 100 ms)
MIN_CORES, MAX_CORES = 0.01, 64.0
QUOTA_TIERS = ("front", "clone", "axis", "gsoap", "haproxy", "locust")
MOUNTINFO = Path("/proc/self/mountinfo")
OWN_CGROUP = Path("/proc/self/cgroup")
DEFAULT_PARENT = "/testbed"
DOCS = "docs/tiers.md, CPU quotas"


class QuotaError(StackError):
    """A quota cannot be set here; the text names the fix."""


def cores(knobs: dict[str, str], tier: str) -> float | None:
    """CPUS_<TIER> as cores per replica; None = no quota (0 or unset). QuotaError on a bad value."""
    key = f"CPUS_{tier.upper()}"
    raw = (knobs.get(key) or "0").strip()
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if value == 0:
        return None
    if not MIN_CORES <= value <= MAX_CORES:
        raise QuotaError(f"{key}={raw!r}: expected cores per replica from {MIN_CORES:g} to {MAX_CORES:g} "
                         "(0.5 = half a core; 0 = no quota), in .env or the environment")
    return value


def all_cores(knobs: dict[str, str]) -> dict[str, float]:
    """Every tier with a quota (QuotaError on the first bad value)."""
    return {t: c for t in QUOTA_TIERS if (c := cores(knobs, t)) is not None}


@dataclass(frozen=True)
class Hierarchy:
    """Where this system keeps the cpu controller: v1 a cpu mount (and cpuacct's, which may be
    the same), v2 the unified mount."""
    version: int
    cpu: Path
    acct: Path

    @property
    def mounts(self) -> list[Path]:
        return [self.cpu] if self.acct == self.cpu else [self.cpu, self.acct]


def find_hierarchy(mountinfo: str) -> Hierarchy | None:
    """The cpu controller's hierarchy from /proc/self/mountinfo text: v1 when a cgroup (v1)
    mount carries the cpu controller (hybrid systems bind it there), else the cgroup2 mount."""
    v1: dict[str, Path] = {}
    v2 = None
    for line in mountinfo.splitlines():
        left, sep, right = line.partition(" - ")
        if not sep:
            continue
        fields, tail = left.split(), right.split()
        if len(fields) < 5 or len(tail) < 3:
            continue
        mount = Path(fields[4].replace("\\040", " "))
        if tail[0] == "cgroup2":
            v2 = v2 or mount
        elif tail[0] == "cgroup":
            for opt in tail[2].split(","):
                if opt in ("cpu", "cpuacct"):
                    v1.setdefault(opt, mount)
    if "cpu" in v1:
        return Hierarchy(1, v1["cpu"], v1.get("cpuacct", v1["cpu"]))
    if v2 is not None:
        return Hierarchy(2, v2, v2)
    return None


def stack_id(state_dir: Path) -> str:
    """The name of a stack's group: readable (the state dir's last two parts) and unique (a
    hash of its full path), e.g. i18a-testbed-3f2a9c01d2."""
    full = str(Path(state_dir).resolve())
    readable = re.sub(r"[^A-Za-z0-9_-]+", "", "-".join(Path(full).parts[-2:]))[:40]
    return f"{readable}-{hashlib.sha1(full.encode()).hexdigest()[:10]}"


def default_parent(own_cgroup: str, uid: int) -> str:
    """/testbed for root; for another user on v2, a `testbed` group in the user@UID.service
    cgroup systemd delegates to them, when this process runs inside it."""
    if uid != 0:
        for line in own_cgroup.splitlines():
            if line.startswith("0::"):
                m = re.match(rf"(.*/user@{uid}\.service)(/|$)", line[3:])
                if m:
                    return f"{m.group(1)}/testbed"
    return DEFAULT_PARENT


def _why(e: OSError, where: Path, version: int) -> str:
    """One line saying why a cgroup write failed and what fixes it."""
    if e.errno == errno.EROFS:
        return (f"{where}: the cgroup filesystem is read-only here (a container without a writable "
                "cgroup: run it with --cgroupns=private and a rw /sys/fs/cgroup, or run ./testbed on the host)")
    if e.errno in (errno.EACCES, errno.EPERM):
        if version == 1:
            return f"{where}: permission denied (cgroup v1 lets root alone make groups): run ./testbed as root"
        return (f"{where}: permission denied: run ./testbed as root, or inside a cgroup delegated to you with "
                "the cpu controller (systemd: Delegate=cpu for user@.service, then systemd-run --user --scope "
                "./testbed up), or point TESTBED_CGROUP at one; or set CPUS_<TIER>=0")
    if e.errno == errno.EBUSY and version == 2:
        return (f"{where}: the cpu controller cannot be enabled there (the group holds processes of its own): "
                "point TESTBED_CGROUP at a group without processes")
    return f"{where}: {e.strerror or e}"


class Quotas:
    """The quota groups of one local stack. place() makes (or updates) a replica's group and
    returns the files its process must write its pid to; remove() and clear() take them away."""

    def __init__(self, state_dir: Path, knobs: dict[str, str] | None = None, mountinfo: str | None = None,
                 own_cgroup: str | None = None, uid: int | None = None):
        """mountinfo, own_cgroup, uid: this process's (/proc/self/...), unless given (tests)."""
        self.state_dir = Path(state_dir)
        self.knobs = knobs if knobs is not None else {}
        self._mountinfo = mountinfo
        self._hierarchy: Hierarchy | None | bool = False     # False: not looked up yet
        self._own = own_cgroup
        self._uid = os.geteuid() if uid is None else uid

    # ------------------------------------------------------------------ where
    @property
    def hierarchy(self) -> Hierarchy | None:
        if self._hierarchy is False:
            try:
                text = MOUNTINFO.read_text() if self._mountinfo is None else self._mountinfo
            except OSError:
                text = ""
            self._hierarchy = find_hierarchy(text)
        return self._hierarchy

    def _own_cgroup(self) -> str:
        if self._own is None:
            try:
                self._own = OWN_CGROUP.read_text()
            except OSError:
                self._own = ""
        return self._own

    @property
    def parent(self) -> str:
        """The cgroup path (from the hierarchy's root) that holds every stack's group."""
        configured = (self.knobs.get("TESTBED_CGROUP") or "").strip()
        if configured:
            return "/" + configured.strip("/")
        return default_parent(self._own_cgroup(), self._uid)

    def stack_dirs(self) -> list[Path]:
        """This stack's group in every hierarchy it uses ([] when there is no cpu controller)."""
        h = self.hierarchy
        if h is None:
            return []
        rel = self.parent.strip("/") + "/" + stack_id(self.state_dir)
        return [m / rel for m in h.mounts]

    def group_dirs(self, name: str) -> list[Path]:
        return [d / name for d in self.stack_dirs()]

    # ------------------------------------------------------------------ making groups
    def place(self, name: str, tier: str) -> list[str]:
        """The group of replica `name` (e.g. clone-2) with CPUS_<TIER> of the knobs: made or
        updated, and the cgroup.procs files its process must enter; [] (and no group) when the
        tier has no quota."""
        quota = cores(self.knobs, tier)
        if quota is None:
            self.remove(name)
            return []
        h = self.hierarchy
        if h is None:
            raise QuotaError(f"CPUS_{tier.upper()}={quota:g} needs the cgroup cpu controller, and none is "
                             "mounted here (/proc/self/mountinfo): mount cgroup2 (or v1's cpu), or set "
                             f"CPUS_{tier.upper()}=0")
        if h.version == 2:
            self._enable_cpu_v2(h)
        dirs = self.group_dirs(name)
        for d in dirs:
            self._mkdir(d, h.version)
        if h.version == 1:
            self._write(dirs[0] / "cpu.cfs_period_us", str(PERIOD_US), h.version)
            self._write(dirs[0] / "cpu.cfs_quota_us", str(round(quota * PERIOD_US)), h.version)
        else:
            self._write(dirs[0] / "cpu.max", f"{round(quota * PERIOD_US)} {PERIOD_US}", h.version)
        procs_files = [str(d / "cgroup.procs") for d in dirs]
        self._check_move(procs_files, h)
        return procs_files

    def _mkdir(self, d: Path, version: int) -> None:
        try:
            d.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise QuotaError("cannot make a CPU quota group: " + _why(e, d, version)) from None

    def _write(self, f: Path, text: str, version: int) -> None:
        try:
            f.write_text(text)
        except OSError as e:
            raise QuotaError("cannot set a CPU quota: " + _why(e, f, version)) from None

    def _enable_cpu_v2(self, h: Hierarchy) -> None:
        """cgroup v2 hands a controller down one level at a time: every group from the root to
        this stack's group must list cpu in cgroup.subtree_control, and the root must have it
        (cgroup.controllers) at all."""
        have = _read(h.cpu / "cgroup.controllers").split()
        if "cpu" not in have:
            raise QuotaError(f"{h.cpu}/cgroup.controllers has no cpu controller ({' '.join(have) or 'none'}): it "
                             "is bound to a cgroup v1 hierarchy or disabled (cgroup_disable=cpu); CPU quotas "
                             "need it")
        stack = self.stack_dirs()[0]
        chain = [h.cpu] + [h.cpu / Path(*stack.relative_to(h.cpu).parts[:i])
                           for i in range(1, len(stack.relative_to(h.cpu).parts) + 1)]
        for d in chain:
            self._mkdir(d, 2)
            control = d / "cgroup.subtree_control"
            enabled = _read(control).split()
            if "cpu" in enabled:
                continue
            try:
                control.write_text("+cpu")
            except OSError as e:
                raise QuotaError(f"the cpu controller is not handed down by {d} (cgroup.subtree_control: "
                                 f"{' '.join(enabled) or 'none'}) and cannot be: {_why(e, control, 2)}") from None

    def _check_move(self, procs_files: list[str], h: Hierarchy) -> None:
        """A process may enter a group when it can write the group's cgroup.procs and (v2, not
        root) that of the closest group it shares with its current one."""
        for f in procs_files:
            if os.path.exists(f) and not os.access(f, os.W_OK):
                raise QuotaError("cannot put a replica into its CPU quota group: "
                                 + _why(OSError(errno.EACCES, "permission denied"), Path(f), h.version))
        if h.version == 2 and self._uid != 0:
            own = next((ln[3:] for ln in self._own_cgroup().splitlines() if ln.startswith("0::")), "/")
            target = Path(procs_files[0]).parent.relative_to(h.cpu).parts
            common = os.path.commonprefix([Path(own.strip("/")).parts, list(target)])
            ancestor = h.cpu.joinpath(*common) / "cgroup.procs"
            if not os.access(ancestor, os.W_OK):
                raise QuotaError(f"cannot move a replica from {own} into {Path(procs_files[0]).parent}: "
                                 f"{ancestor} is not yours (cgroup v2 delegation): start ./testbed inside "
                                 "your delegated cgroup: systemd-run --user --scope ./testbed up")

    # ------------------------------------------------------------------ reading back
    def quota(self, name: str) -> float | None:
        """The replica's quota in cores as the kernel has it, None when it has none."""
        dirs = self.group_dirs(name)
        if not dirs or not dirs[0].is_dir():
            return None
        try:
            if self.hierarchy.version == 1:
                q = int(_read(dirs[0] / "cpu.cfs_quota_us") or -1)
                period = int(_read(dirs[0] / "cpu.cfs_period_us") or PERIOD_US)
            else:
                q_text, _, p_text = _read(dirs[0] / "cpu.max").partition(" ")
                q, period = (-1 if q_text in ("max", "") else int(q_text)), int(p_text or PERIOD_US)
        except ValueError:
            return None
        return round(q / period, 4) if q > 0 else None

    def usage_file(self, name: str) -> str | None:
        """The group's CPU accounting file (v1 cpuacct.usage, v2 cpu.stat) for the sampler."""
        h = self.hierarchy
        dirs = self.group_dirs(name)
        if not dirs:
            return None
        f = dirs[-1] / ("cpuacct.usage" if h.version == 1 else "cpu.stat")
        return str(f) if f.exists() else None

    def pids(self) -> dict[str, list[int]]:
        """Processes in this stack's groups, by group name."""
        out: dict[str, set[int]] = {}
        for base in self.stack_dirs():
            for d in (base.iterdir() if base.is_dir() else ()):
                pids = {int(p) for p in _read(d / "cgroup.procs").split() if p.isdigit()} if d.is_dir() else set()
                if pids:
                    out.setdefault(d.name, set()).update(pids)
        return {name: sorted(pids) for name, pids in out.items()}

    def per_tier(self, replicas: dict[str, list[int]], names) -> dict[str, float | None] | None:
        """{tier: cores of its first replica or None} for every tier in names (experiment.json's
        cpu_quotas, as docker mode gives them), or None when no replica has a quota."""
        out = {t: self.quota(f"{t}-{min(replicas[t])}") if replicas.get(t) else None for t in names}
        return out if any(out.values()) else None

    # ------------------------------------------------------------------ removing
    def remove(self, name: str, timeout: float = 5.0) -> None:
        """Remove a replica's group (its process has ended). A multi-threaded process is a zombie
        before its last thread has left the group, so the group may stay busy a moment: waited
        for up to timeout. A group that still holds a process then stays; clear() reports it."""
        deadline = time.monotonic() + timeout
        for d in self.group_dirs(name):
            while not _rmdir(d) and time.monotonic() < deadline:
                time.sleep(0.05)

    def clear(self, stop_leftovers: bool = False, timeout: float = 10.0) -> list[int]:
        """Remove every group of this stack (stale ones of a killed CLI too); with
        stop_leftovers, first end the processes still in them (SIGTERM, then SIGKILL after
        timeout): they were put there by this stack's up/scale. Returns the pids that remain."""
        left = [p for ps in self.pids().values() for p in ps]
        if left and stop_leftovers:
            for sig in (signal.SIGTERM, signal.SIGKILL):
                for p in left:
                    try:
                        os.kill(p, sig)
                    except ProcessLookupError:
                        pass
                deadline = time.monotonic() + timeout
                while time.monotonic() < deadline and self.pids():
                    time.sleep(0.05)
                if not self.pids():
                    break
            left = [p for ps in self.pids().values() for p in ps]
        if left:
            return left
        for base in self.stack_dirs():
            if not base.is_dir():
                continue
            for d in base.iterdir():
                if d.is_dir():
                    _rmdir(d)
            _rmdir(base)
            if not (self.knobs.get("TESTBED_CGROUP") or "").strip():
                _rmdir(base.parent)      # the shared `testbed` group, once no stack uses it
        return []


    def clear_stale(self) -> None:
        """Before a start: remove the groups a killed CLI left; refuse while they hold processes."""
        left = self.clear()
        if left:
            raise QuotaError(f"processes of an earlier start of this stack still run in its CPU quota groups "
                             f"(pids {', '.join(map(str, left))}): ./testbed down stops them")

    def stop_and_clear(self, known: set[int]) -> list[str]:
        """After a stop: end what is left in the groups (a CLI killed before it saved what it had
        started), remove every group; what was ended, one text each (not the known pids, nor
        HAProxy's workers: its master's children)."""
        leftovers = {name: [p for p in pids if p not in known] for name, pids in self.pids().items()
                     if name != "haproxy"}
        left = self.clear(stop_leftovers=True)
        if left:
            raise QuotaError(f"pids {', '.join(map(str, left))} would not stop and hold the stack's CPU quota "
                             f"groups ({self.stack_dirs()[0]}); kill -9 them, then ./testbed down")
        return [f"{name} (pid {', '.join(map(str, pids))}, left by an earlier start)"
                for name, pids in sorted(leftovers.items()) if pids]


def _read(f: Path) -> str:
    try:
        return f.read_text().strip()
    except OSError:
        return ""


def _rmdir(d: Path) -> bool:
    """rmdir, as cgroupfs wants (a group's control files go with it); absent or busy: left.
    True when the group is gone."""
    try:
        d.rmdir()
    except FileNotFoundError:
        pass
    except OSError as e:
        if e.errno not in (errno.EBUSY, errno.ENOTEMPTY, errno.EEXIST):
            raise QuotaError(f"cannot remove the CPU quota group {d}: {e.strerror}") from None
        return False
    return True
