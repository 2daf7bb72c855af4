"""Parsing jstack output: which threads are BLOCKED, on which monitor, and who holds it.

A thread entry in `jstack <pid>` output starts with a quoted name line, then
    java.lang.Thread.State: BLOCKED (on object monitor)
    - waiting to lock <0x00000000fe133508> (a Contended$SingletonClient)
and the holder of that monitor shows `- locked <0x00000000fe133508> (a ...)`. Threads parked on
a java.util.concurrent lock show `- parking to wait for  <0x...> (a ...)` instead.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

_THREAD = re.compile(r'^"(?P<name>(?:[^"\\]|\\.)*)"')
_STATE = re.compile(r"^\s*java\.lang\.Thread\.State:\s*(?P<state>[A-Z_]+)")
_LOCK = re.compile(r"^\s*- (?P<what>waiting to lock|locked|parking to wait for|waiting on)\s+"
                   r"<(?P<addr>0x[0-9a-fA-F]+)>\s+\(a (?P<cls>[^)]+)\)")


@dataclass
class Thread:
    name: str
    state: str | None = None
    waiting_to_lock: list[tuple[str, str]] = field(default_factory=list)  # (address, class)
    parked_on: list[tuple[str, str]] = field(default_factory=list)
    locked: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class ThreadDump:
    threads: list[Thread]

    @property
    def blocked(self) -> list[Thread]:
        return [t for t in self.threads if t.state == "BLOCKED"]

    def states(self) -> dict[str, int]:
        return dict(Counter(t.state or "unknown" for t in self.threads))

    def blocked_by_monitor(self) -> dict[str, int]:
        """Monitor class -> number of BLOCKED threads waiting to lock it, most first."""
        c = Counter(t.waiting_to_lock[0][1] for t in self.blocked if t.waiting_to_lock)
        return dict(c.most_common())

    def parked_by_lock(self) -> dict[str, int]:
        """j.u.c lock/synchronizer class -> threads parked on it (WAITING/TIMED_WAITING)."""
        c = Counter(t.parked_on[0][1] for t in self.threads if t.parked_on)
        return dict(c.most_common())

    def holders(self, address: str) -> list[str]:
        return [t.name for t in self.threads if any(a == address for a, _ in t.locked)]

    def hottest_monitor(self) -> dict | None:
        """The monitor most threads are blocked on: class, address, waiters, holder thread(s)."""
        by_addr = Counter(t.waiting_to_lock[0] for t in self.blocked if t.waiting_to_lock)
        if not by_addr:
            return None
        (addr, cls), waiters = by_addr.most_common(1)[0]
        return {"class": cls, "address": addr, "waiting_threads": waiters,
                "holders": self.holders(addr)}

    def to_json(self) -> dict:
        return {"threads": len(self.threads), "states": self.states(),
                "blocked": len(self.blocked), "blocked_by_monitor": self.blocked_by_monitor(),
                "parked_by_lock": self.parked_by_lock(), "hottest_monitor": self.hottest_monitor()}


def parse(text: str) -> ThreadDump:
    """Parse jstack output (Java 8-21 layout); unknown lines are ignored."""
    threads: list[Thread] = []
    current: Thread | None = None
    for line in text.splitlines():
        m = _THREAD.match(line)
        if m:
            current = Thread(m["name"])
            threads.append(current)
            continue
        if current is None:
            continue
        m = _STATE.match(line)
        if m:
            current.state = m["state"]
            continue
        m = _LOCK.match(line)
        if m:
            ref = (m["addr"], m["cls"].strip())
            {"waiting to lock": current.waiting_to_lock, "locked": current.locked,
             "parking to wait for": current.parked_on,
             "waiting on": []}[m["what"]].append(ref)
    return ThreadDump(threads)


def summary_sentence(dump: ThreadDump) -> str:
    hot = dump.hottest_monitor()
    if not hot:
        parked = dump.parked_by_lock()
        extra = f"; parked on {', '.join(f'{c} ({n})' for c, n in parked.items())}" if parked else ""
        return f"{len(dump.threads)} threads, none BLOCKED on a monitor{extra}"
    holder = f", held by \"{hot['holders'][0]}\"" if hot["holders"] else ""
    return (f"{len(dump.blocked)} of {len(dump.threads)} threads BLOCKED; "
            f"{hot['waiting_threads']} wait to lock {hot['class']}{holder}")
