"""Fault injection: kill, pause or slow one replica of a tier, now or at a time offset, for a
while; by hand (`./testbed fault kill clone#2 --for 20`) or from an experiment (`[[faults]]`,
cli/testbed/run/runner.py). The same in every mode: the Stack sends the signals and brings a
killed replica back (stack.py: signal, revive, server_states).

  kill   SIGKILL: the replica is gone at once (a crash, an OOM kill). With --for D it is
         started again after D seconds and put back in rotation once healthy.
  pause  SIGSTOP for D seconds, then SIGCONT: the process is frozen (a long GC pause, a VM
         stall): connections stay open, nothing answers.
  slow   for D seconds the replica runs only `speed` of the time (SIGSTOP/SIGCONT in 100 ms
         periods; default 20 %): every request takes ~5× longer, with stalls up to 80 ms.

A target may also be a node of a cluster made by `./testbed cluster up` (node-3): kill stops the
node's container at once (a machine that loses power; with --for D it is started again after D
s), pause freezes it for D seconds (a machine that hangs). Swarm notices the node is down and
starts its tasks on the other nodes their placement allows; HAProxy follows by DNS. The record
then also says when every tier the node ran was back at its replica count, UP in HAProxy, on
other nodes (rescheduled_after_s); a kill's window lasts until then.

Every fault writes what happened as JSON lines (action, target, HAProxy's server, the time it
started and ended, the requests the server had in flight at the start, how long HAProxy took
to take it out of rotation, and whether it came back): runs/<id>/faults.jsonl in an experiment.
"""
from __future__ import annotations

import json
import re
import signal
import sys
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ACTIONS = ("kill", "pause", "slow")
TARGET = re.compile(r"^(?P<tier>front|clone|axis|gsoap)(?:#(?P<replica>\d+))?$")
NODE_TARGET = re.compile(r"^(?:node:(?P<name>[A-Za-z0-9][A-Za-z0-9_.-]*)|(?P<node>node-\d+))$")
RESCHEDULE_TIMEOUT_S = 300.0   # a node fault: until its tiers run elsewhere (JVMs start there)
PERIOD_S = 0.1                 # the slow fault's duty cycle
EJECT_TIMEOUT_S = 30.0
OUT_OF_ROTATION = ("DOWN", "MAINT", "NOLB", "DRAIN")
KEYS = ("action", "target", "at", "for", "speed", "run")


class FaultError(ValueError):
    """A fault that cannot be done as asked; the text names the fix."""


@dataclass(frozen=True)
class Fault:
    action: str                 # kill | pause | slow
    tier: str
    replica: int | None         # None: the tier's highest-numbered replica
    at: float = 0.0             # seconds after the start (of the run, or of the command)
    duration: float | None = None   # seconds; None: kill stays killed, pause/slow 10 s
    speed: float = 0.2          # slow: the share of time the replica still runs
    run: str = "*"              # experiments: the run (entry id) it applies to, * = every run
    node: str | None = None     # a node fault (tier "node"): the node's hostname

    @property
    def target(self) -> str:
        if self.node:
            return self.node
        return self.tier + (f"#{self.replica}" if self.replica is not None else "")

    def describe(self) -> str:
        d = f" for {self.duration:g} s" if self.duration is not None else ""
        return f"{self.action} {self.target} at +{self.at:g} s{d}" + (
            f" (runs {self.speed:.0%} of the time)" if self.action == "slow" else "")


def parse(action: str, target: str, at: float = 0.0, duration: float | None = None, speed: float = 0.2,
          run: str = "*") -> Fault:
    if action not in ACTIONS:
        raise FaultError(f"fault {action!r}: one of {', '.join(ACTIONS)}")
    m = TARGET.match(str(target))
    node = NODE_TARGET.match(str(target))
    if node and action == "slow":
        raise FaultError(f"fault slow {target}: a node can be killed or paused; slow one of its replicas instead")
    if not m and not node:
        raise FaultError(f"fault target {target!r}: TIER or TIER#i, e.g. clone#2 (tiers: front, clone, axis, "
                         "gsoap), or a cluster node: node-3 (or node:HOSTNAME)")
    if not 0 <= at <= 86400 or (duration is not None and not 0 < duration <= 86400):
        raise FaultError(f"fault {action} {target}: at must be 0..86400 s and for 0 < D <= 86400 s")
    if not 0.01 <= speed <= 0.99:
        raise FaultError(f"fault slow {target}: speed must be 0.01..0.99 (the share of time it runs)")
    if action != "kill" and duration is None:
        duration = 10.0
    if node:
        return Fault(action, "node", None, float(at), duration, float(speed), str(run),
                     node=node["name"] or node["node"])
    return Fault(action, m["tier"], int(m["replica"]) if m["replica"] else None, float(at),
                 duration, float(speed), str(run))


def from_table(entry: dict, where: str) -> Fault:
    """One [[faults]] entry of an experiment file."""
    unknown = sorted(set(entry) - set(KEYS))
    if unknown:
        raise FaultError(f"{where}: [[faults]] has unknown key(s) {', '.join(unknown)}; keys: {', '.join(KEYS)}")
    try:
        return parse(entry.get("action", ""), entry.get("target", ""), float(entry.get("at", 0)),
                     float(entry["for"]) if "for" in entry else None, float(entry.get("speed", 0.2)),
                     entry.get("run", "*"))
    except (TypeError, ValueError) as e:
        raise FaultError(f"{where}: [[faults]]: {e}") from None


def from_tables(entries, ids: list[str], where: str) -> list[Fault]:
    """An experiment's [[faults]]; run = an entry id of its [[runs]], or "*" for every run."""
    if not isinstance(entries, list):
        raise FaultError(f"{where}: faults must be an array of tables: [[faults]]")
    out = [from_table(e if isinstance(e, dict) else {}, where) for e in entries]
    for f in out:
        if f.run != "*" and f.run not in ids:
            raise FaultError(f"{where}: [[faults]] run = {f.run!r} is not a run of this file "
                             f"({', '.join(ids)}, or \"*\" for every run)")
    return out


class Injector:
    """Runs faults against a stack in background threads; `records` (and the JSON-lines file)
    say what happened. heal() ends whatever is still going (a run that ends early)."""

    def __init__(self, stack, log_path: Path | None = None, say=print):
        self.stack, self.log_path, self.say = stack, log_path, say
        self.records: list[dict] = []
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()

    @property
    def started(self) -> bool:
        return bool(self._threads)

    def start(self, faults: list[Fault], t0: float | None = None) -> None:
        t0 = time.time() if t0 is None else t0
        for f in faults:
            th = threading.Thread(target=self._run, args=(f, t0), name=f"fault-{f.target}", daemon=True)
            th.start()
            self._threads.append(th)

    def wait(self) -> None:
        for th in self._threads:
            th.join()

    def heal(self, timeout: float = 120.0) -> None:
        """Stop waiting, end every fault in progress (resume, revive), return once done."""
        self._stop.set()
        deadline = time.monotonic() + timeout
        for th in self._threads:
            th.join(max(0.1, deadline - time.monotonic()))

    # ------------------------------------------------------------------ one fault
    def _replica(self, f: Fault) -> dict:
        rows = [r for r in self.stack.status()["replicas"] if r["tier"] == f.tier and r["alive"]]
        if f.replica is not None:
            rows = [r for r in rows if r["replica"] == f.replica]
        if not rows:
            raise FaultError(f"no running replica {f.target} (./testbed status)")
        return max(rows, key=lambda r: r["replica"])

    def _run(self, f: Fault, t0: float) -> None:
        rec = {**{k: v for k, v in asdict(f).items() if k != "duration"}, "for": f.duration, "target": f.target,
               "start": None, "end": None, "server": None, "in_flight": None, "ejected_after_s": None,
               "back_after_s": None, "error": None}
        try:
            if self._stop.wait(max(0.0, t0 + f.at - time.time())):
                rec["error"] = "not started: the run ended first"
                return
            if f.node:
                from testbed.swarm.node_faults import node_fault
                node_fault(self, f, rec)
                return
            r = self._replica(f)
            rec["server"], rec["replica"] = r.get("server"), r["replica"]
            rec["in_flight"] = self.stack.server_states(f.tier).get(r.get("server"), {}).get("sessions")
            rec["start"] = time.time()
            self.say(f"fault: {f.action} {f.tier}-{r['replica']} (HAProxy server {r.get('server')}, "
                     f"{rec['in_flight']} request(s) in flight)")
            getattr(self, f"_{f.action}")(f, r, rec)
        except Exception as e:            # a fault that failed is recorded, never kills the run
            rec["error"] = f"{type(e).__name__}: {e}"[:300]
            self.say(f"fault: {f.describe()} failed: {rec['error']}")
        finally:
            rec["end"] = rec["end"] or (time.time() if rec["start"] else None)
            self._record(rec)

    def _kill(self, f: Fault, r: dict, rec: dict) -> None:
        self.stack.signal(r, signal.SIGKILL)
        self._watch_ejection(f, r, rec)
        if f.duration is None:
            return
        self._stop.wait(max(0.0, rec["start"] + f.duration - time.time()))
        rec["end"] = time.time()
        self.stack.revive(r)
        rec["back_after_s"] = round(time.time() - rec["end"], 2)
        self.say(f"fault: {f.tier}-{r['replica']} back in rotation {rec['back_after_s']} s after the restart")

    def _pause(self, f: Fault, r: dict, rec: dict) -> None:
        self.stack.signal(r, signal.SIGSTOP)
        try:
            self._watch_ejection(f, r, rec, until=rec["start"] + f.duration)
            self._stop.wait(max(0.0, rec["start"] + f.duration - time.time()))
        finally:
            self.stack.signal(r, signal.SIGCONT)
            rec["end"] = time.time()

    def _slow(self, f: Fault, r: dict, rec: dict) -> None:
        stopped = False
        try:
            while time.time() < rec["start"] + f.duration and not self._stop.is_set():
                self.stack.signal(r, signal.SIGSTOP)
                stopped = True
                time.sleep(PERIOD_S * (1 - f.speed))
                self.stack.signal(r, signal.SIGCONT)
                stopped = False
                time.sleep(PERIOD_S * f.speed)
        finally:
            if stopped:
                self.stack.signal(r, signal.SIGCONT)
            rec["end"] = time.time()

    def _watch_ejection(self, f: Fault, r: dict, rec: dict, until: float | None = None) -> None:
        """How long until HAProxy takes the server out of rotation (polled every 0.2 s)."""
        deadline = min(rec["start"] + EJECT_TIMEOUT_S, until or float("inf"))
        while time.time() < deadline and not self._stop.is_set():
            status = self.stack.server_states(f.tier).get(r.get("server"), {}).get("status", "")
            if status.startswith(OUT_OF_ROTATION):
                rec["ejected_after_s"] = round(time.time() - rec["start"], 2)
                self.say(f"fault: HAProxy took {r.get('server')} out of rotation after {rec['ejected_after_s']} s ({status})")
                return
            time.sleep(0.2)

    def _record(self, rec: dict) -> None:
        with self._lock:
            self.records.append(rec)
            if self.log_path:
                with open(self.log_path, "a", encoding="utf-8") as out:
                    out.write(json.dumps(rec) + "\n")


def add_arguments(s) -> None:
    s.add_argument("action", choices=ACTIONS)
    s.add_argument("target", metavar="TIER[#i]|NODE",
                   help="e.g. clone#2 (without #i the highest-numbered replica), or a cluster node: node-3 "
                        "(kill: its container stops, Swarm reschedules; pause: frozen)")
    s.add_argument("--at", type=float, default=0.0, metavar="T", help="start T seconds from now (default 0)")
    s.add_argument("--for", dest="duration", type=float, default=None, metavar="D",
                   help="seconds (pause, slow: default 10; kill: restart after D s, default never)")
    s.add_argument("--speed", type=float, default=0.2, help="slow: share of time the replica runs (default 0.2)")


def command(args) -> int:
    """`./testbed fault ACTION TARGET ...`: parse, inject, wait (Ctrl-C heals), print the record."""
    from testbed.stack.factory import detect
    try:
        fault = parse(args.action, args.target, args.at, args.duration, args.speed)
    except FaultError as e:
        print(f"testbed: fault: {e}", file=sys.stderr)
        return 2
    stack = detect()
    if stack is None:
        print("testbed: fault: the stack is not up; start it with ./testbed up", file=sys.stderr)
        return 1
    inj = Injector(stack, say=lambda text: print(text, flush=True))
    print(f"fault: {fault.describe()} on the {stack.mode} stack" + ("" if fault.duration or fault.action != "kill"
          else "; it stays down (" + ("docker start its container, named by ./testbed cluster status, or --for D, brings it "
                                       "back)" if fault.node
                                      else "./testbed scale TIER=N, or --for D, brings it back)")), flush=True)
    inj.start([fault])
    try:
        inj.wait()
    except KeyboardInterrupt:
        print("\nfault: Ctrl-C: ending the fault ...", flush=True)
        inj.heal()
    rec = inj.records[0] if inj.records else {}
    if rec.get("error"):
        print(f"testbed: fault: {rec['error']}", file=sys.stderr)
        return 1
    keys = ("server", "in_flight", "ejected_after_s", "back_after_s") + (
        ("replicas", "rescheduled_after_s", "restarted_after_s") if fault.node else ())
    print("fault: done: " + json.dumps({k: rec.get(k) for k in keys}))
    return 0
