"""`./testbed fault ACTION TARGET [--at T] [--for D] [--speed S]`: one fault on the running stack,
by hand; waits until it ends (Ctrl-C heals it) and prints what happened."""
from __future__ import annotations

import json
import sys

from testbed.faults.injector import Injector
from testbed.faults.spec import ACTIONS, FaultError, parse


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
    from testbed.stacks.factory import detect
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
