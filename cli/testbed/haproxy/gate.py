"""The readiness gate of the haproxy container (docker mode: compose, Swarm). HAProxy's master
runs it (`program readiness-gate` in the rendered config) and restarts it if it dies.

Every server-template slot starts in maintenance (`disabled`). Twice a second the gate reads
`show servers state` and, for each slot:
- it holds a replica's address and is in maintenance the config or the gate put it in: the
  gate probes the replica's GET /health itself (1 s timeout) and, on 200, sets the slot
  `ready`; HAProxy's own checks then bring it UP. A replica that is still starting is never
  checked by HAProxy, so it is never marked DOWN, and a normal start logs no "no server
  available".
- it holds no address (its replica left; resolution maintenance) and is not in maintenance:
  the gate sets it `maint`, so the next replica that takes the slot waits for its health too.
A slot someone else put in maintenance or drain (`./testbed scale`, `./testbed fault`, a
person on the runtime API) is left alone. Only the runtime API's unix socket and the
replicas' /health on the compose network are touched.

    python3 -m testbed.haproxy.gate /run/haproxy/haproxy.sock
"""
from __future__ import annotations

import sys
import time
import urllib.request
from pathlib import Path

from testbed.haproxy.config import BACKENDS
from testbed.haproxy.runtime import Runtime

CMAINT, FMAINT, RMAINT = 0x04, 0x01, 0x20    # HAProxy's srv_admin_state bits (config, CLI, DNS)
INTERVAL_S = 0.5
PROBE_TIMEOUT_S = 1.0


def parse_state(text: str) -> list[dict]:
    """Rows of `show servers state`: backend, server, addr ("-" = none), operational state
    (0 = stopped), admin bits, port."""
    rows = []
    for line in text.splitlines():
        f = line.split()
        if len(f) < 19 or not f[0].isdigit():
            continue
        rows.append({"backend": f[1], "server": f[3], "addr": f[4], "op": int(f[5]), "admin": int(f[6]),
                     "port": int(f[18]) if f[18].isdigit() else 0})
    return rows


class Gate:
    """What to set, from one reading of the slots. It remembers the slots it put in maintenance
    (only those it takes out again, besides the config's `disabled`) and the address it last
    readied in each slot (HAProxy keeps the config's maintenance bit after `ready`: a slot
    whose replica is merely DOWN is not readied again and again)."""

    def __init__(self, probe):
        self.probe = probe
        self.ours: set[tuple[str, str]] = set()
        self.readied: dict[tuple[str, str], str] = {}

    def decide(self, rows: list[dict]) -> list[tuple[str, str, str]]:
        """(backend, server, "ready" | "maint") to set now."""
        out = []
        for r in rows:
            key = (r["backend"], r["server"])
            has_addr = r["addr"] not in ("-", "", "0.0.0.0") and not r["admin"] & RMAINT
            if not has_addr:
                self.readied.pop(key, None)
                if not r["admin"] & (CMAINT | FMAINT):
                    out.append((*key, "maint"))
                    self.ours.add(key)
                continue
            held = r["op"] == 0 and (r["admin"] & CMAINT or (r["admin"] & FMAINT and key in self.ours))
            if held and self.readied.get(key) != r["addr"] and self.probe(r["addr"], r["port"]):
                out.append((*key, "ready"))
                self.ours.discard(key)
                self.readied[key] = r["addr"]
        return out


def probe_health(addr: str, port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://{addr}:{port}/health", timeout=PROBE_TIMEOUT_S) as r:
            return r.status == 200
    except OSError:
        return False


def main(argv: list[str]) -> int:
    rt = Runtime(Path(argv[1]) if len(argv) > 1 else Path("/run/haproxy/haproxy.sock"))
    gate = Gate(probe_health)
    while True:
        try:
            rows = [r for b in BACKENDS for r in parse_state(rt.command(f"show servers state {b}"))]
            for backend, server, state in gate.decide(rows):
                rt.set_state(backend, server, state)
                print(f"readiness-gate: {backend}/{server} {state}", flush=True)
        except Exception as e:          # HAProxy reloading, a socket hiccup: try again
            print(f"readiness-gate: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
        time.sleep(INTERVAL_S)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
