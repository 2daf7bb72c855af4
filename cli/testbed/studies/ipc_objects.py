"""The named objects a tb-ipc measurement makes, found and removed from Python.

Every measurement of one study run uses the same names, made from the runner's pid
(`names(pid)`): the FIFO and the socket files in the directory /tmp/tb-ipc.<pid>/, the POSIX
message queue and shared-memory object /tb-ipc.<pid>, and the System V queue key
0x7B000000 + pid. tb-ipc removes them itself when it ends, also on SIGINT/SIGTERM; a SIGKILL
of its process group (the study runner's timeout) leaves them, and System V and POSIX queues
outlive every process. `leftovers` lists what exists, `remove` removes it; `stale` finds the
objects of runs whose process is gone (an earlier run killed with the runner).

POSIX queues are listed under /dev/mqueue only where the mqueue filesystem is mounted there;
elsewhere a queue is found by opening its name (mq_open without O_CREAT), which needs the name.
"""
from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

PREFIX = "tb-ipc."
KEY_BASE = 0x7B000000           # System V keys 0x7Bxxxxxx: the top byte marks tb-ipc's queues
TMP = Path("/tmp")
SHM_DIR, MQUEUE_DIR = Path("/dev/shm"), Path("/dev/mqueue")
SYSV_TABLE = Path("/proc/sysvipc/msg")
SUFFIXES = (".fifo", ".sock", ".dgram")


@dataclass(frozen=True)
class Names:
    base: str          # tb-ipc.<pid>
    dir: Path          # where the FIFO and socket files go
    key: int           # System V key

    @property
    def argv(self) -> list[str]:
        """tb-ipc's options for these names."""
        return ["--name", self.base, "--dir", str(self.dir), "--key", hex(self.key)]


def names(pid: int | None = None) -> Names:
    pid = os.getpid() if pid is None else pid
    return Names(f"{PREFIX}{pid}", TMP / f"{PREFIX}{pid}", KEY_BASE | (pid & 0xFFFFFF))


def _libc():
    lib = ctypes.CDLL(None, use_errno=True)
    if not hasattr(lib, "mq_unlink"):             # glibc < 2.34 keeps it in librt
        lib = ctypes.CDLL(ctypes.util.find_library("rt"), use_errno=True)
    return lib


def _mq_exists(base: str) -> bool:
    if MQUEUE_DIR.is_dir():
        return (MQUEUE_DIR / base).exists()
    lib = _libc()
    lib.mq_open.restype = ctypes.c_int
    fd = lib.mq_open(f"/{base}".encode(), os.O_RDONLY)
    if fd >= 0:
        lib.mq_close(fd)
        return True
    return False


def _sysv_ids(key_filter) -> dict[int, int]:
    """key -> msqid of the System V queues whose key passes key_filter (from /proc)."""
    out = {}
    try:
        lines = SYSV_TABLE.read_text().splitlines()[1:]
    except OSError:
        return out
    for line in lines:
        f = line.split()
        if len(f) >= 2:
            key = int(f[0]) & 0xFFFFFFFF
            if key_filter(key):
                out[key] = int(f[1])
    return out


def leftovers(n: Names) -> list[str]:
    """Every object of these names that exists now, as text a person reads."""
    found = [str(n.dir / f"{n.base}{s}") for s in SUFFIXES if (n.dir / f"{n.base}{s}").exists()]
    if (SHM_DIR / n.base).exists():
        found.append(f"shared memory /{n.base}")
    if _mq_exists(n.base):
        found.append(f"POSIX queue /{n.base}")
    if n.key in _sysv_ids(lambda k: k == n.key):
        found.append(f"System V queue key {n.key:#x}")
    return found


def remove(n: Names, keep_dir: bool = False) -> list[str]:
    """Remove every object of these names; returns what existed. keep_dir leaves the (then
    empty) directory for the next measurement."""
    found = leftovers(n)
    for s in SUFFIXES:
        with contextlib.suppress(FileNotFoundError):
            (n.dir / f"{n.base}{s}").unlink()
    with contextlib.suppress(FileNotFoundError):
        (SHM_DIR / n.base).unlink()
    lib = _libc()
    lib.mq_unlink(f"/{n.base}".encode())
    for msqid in _sysv_ids(lambda k: k == n.key).values():
        lib.msgctl(msqid, 0, None)                 # IPC_RMID
    if not keep_dir and n.dir.is_dir():
        shutil.rmtree(n.dir, ignore_errors=True)
    return found


def stale(own_pid: int | None = None) -> list[Names]:
    """The names of tb-ipc runs whose process no longer exists (not our own pid)."""
    own = os.getpid() if own_pid is None else own_pid
    pids: set[int] = set()
    for folder in (TMP, SHM_DIR, MQUEUE_DIR):
        try:
            pids |= {_pid(p.name) for p in folder.glob(f"{PREFIX}*")} - {None}
        except OSError:
            pass
    pids |= {k & 0xFFFFFF for k in _sysv_ids(lambda k: k >> 24 == KEY_BASE >> 24)}
    return [names(p) for p in sorted(pids) if p != own and not _alive(p)]


def _pid(name: str) -> int | None:
    head = name[len(PREFIX):].split(".")[0]
    return int(head) if head.isdigit() else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True

