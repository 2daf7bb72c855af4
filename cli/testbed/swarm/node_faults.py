"""A fault on a whole node of a cluster made by `./testbed cluster up` (the fault Injector hands
node targets here): kill stops the node's container at once, pause freezes it; both are undone after
`for` seconds when one is given. What is recorded besides a replica fault's fields: the replicas
the node ran (and their HAProxy servers), how long HAProxy took to take all of them out of
rotation (ejected_after_s), and how long until every tier the node ran was back at its replica
count, UP in HAProxy, on nodes still standing (rescheduled_after_s) — Swarm noticing the node
down, starting the tasks elsewhere, HAProxy finding them by DNS — and when the node was started
again (restarted_after_s). A kill's window ends when its tiers serve from elsewhere (or, if
they never did, when the node was started again); a pause's when the node is resumed."""
from __future__ import annotations

import time

POLL_S = 1.0   # each poll asks the manager and HAProxy (several docker calls)
OUT = ("DOWN", "MAINT", "NOLB", "DRAIN")


def _recovered(stack, node: str, want: dict[str, int]) -> bool:
    rows = stack.status()["replicas"]
    for tier, n in want.items():
        up = [r for r in rows if r["tier"] == tier and r["alive"] and r["haproxy"] == "UP" and r.get("node") != node]
        if len(up) < n:
            return False
    return True


def node_fault(inj, f, rec: dict, timeout: float = 300.0) -> None:
    """inj: the faults.Injector (its stack, stop event and say); f: a faults.Fault with f.node."""
    stack, say, stop = inj.stack, inj.say, inj._stop
    before = stack.status()["replicas"]
    hit = [r for r in before if r.get("node") == f.node]
    want = {}
    for r in before:
        if r["alive"] and r["tier"] in {h["tier"] for h in hit}:
            want[r["tier"]] = want.get(r["tier"], 0) + 1
    servers = {(r["tier"], r["server"]) for r in hit if r.get("server")}
    rec["server"] = ", ".join(sorted(s for _, s in servers)) or None
    rec["replicas"] = sorted(f"{r['tier']}-{r['replica']}" for r in hit)
    rec["in_flight"] = sum(int(r.get("sessions") or 0) for r in hit)
    rec["ejected_after_s"] = rec["rescheduled_after_s"] = rec["restarted_after_s"] = None
    rec["start"] = time.time()
    say(f"fault: {f.action} {f.node} (runs {', '.join(rec['replicas']) or 'no replica of the stack'}; "
        f"{rec['in_flight']} request(s) in flight)")
    stack.node_action(f.node, "kill" if f.action == "kill" else "pause")
    undo_at = rec["start"] + f.duration if f.duration is not None else None
    undone = False
    deadline = rec["start"] + timeout
    while time.time() < deadline and not stop.is_set():
        now = time.time()
        if undo_at is not None and not undone and now >= undo_at:
            stack.node_action(f.node, "start" if f.action == "kill" else "resume")
            undone = True
            rec["restarted_after_s"] = round(time.time() - rec["start"], 2)
            say(f"fault: {f.node} {'started again' if f.action == 'kill' else 'resumed'} after {f.duration:g} s")
        if rec["ejected_after_s"] is None and servers:
            states = {t: stack.server_states(t) for t in {t for t, _ in servers}}
            if all(states[t].get(s, {}).get("status", "").startswith(OUT) for t, s in servers):
                rec["ejected_after_s"] = round(now - rec["start"], 2)
                say(f"fault: HAProxy took {rec['server']} out of rotation after {rec['ejected_after_s']} s")
        if rec["rescheduled_after_s"] is None and want and _recovered(stack, f.node, want):
            rec["rescheduled_after_s"] = round(time.time() - rec["start"], 2)
            say(f"fault: {', '.join(sorted(want))} back at full strength on other nodes after "
                f"{rec['rescheduled_after_s']} s")
        done = rec["rescheduled_after_s"] is not None or not want
        if done and (undo_at is None or undone):
            break
        time.sleep(POLL_S)
    if undo_at is not None and not undone:       # the run ended first: never leave a node down
        stack.node_action(f.node, "start" if f.action == "kill" else "resume")
        rec["restarted_after_s"] = round(time.time() - rec["start"], 2)
    ends = [rec["start"] + x for x in (rec["rescheduled_after_s"] if f.action == "kill" else None,
                                       rec["restarted_after_s"]) if x is not None]
    rec["end"] = ends[0] if ends else time.time()
    rec["back_after_s"] = rec["rescheduled_after_s"]
    if want and rec["rescheduled_after_s"] is None:
        rec["error"] = (f"{', '.join(sorted(want))} not back at full strength on other nodes within "
                        f"{timeout:.0f} s (does the placement allow another node? ./testbed status)")
