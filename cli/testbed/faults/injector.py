"""Fault injection: kill, pause or slow one replica of a tier, now or at a time offset, for a
while; by hand (`./testbed fault kill clone#2 --for 20`) or from an experiment (`[[faults]]`,
cli/testbed/run/onerun.py). The same in every mode: the Stack sends the signals and brings a
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
import signal
import threading
import time
from dataclasses import asdict
from pathlib import Path

from testbed.faults.spec import Fault

RESCHEDULE_TIMEOUT_S = 300.0   # a node fault: until its tiers run elsewhere (JVMs start there)
PERIOD_S = 0.1                 # the slow fault's duty cycle
EJECT_TIMEOUT_S = 30.0
OUT_OF_ROTATION = ("DOWN", "MAINT", "NOLB", "DRAIN")


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
