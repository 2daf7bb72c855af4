"""The Locust web UI of a running stack: one master and its workers, all on loopback, aimed at
HAProxy's web entry point. The master's web UI listens on loopback (cfg.locust_web_port);
people reach it through HAProxy's locust_ui entry on LOCUST_PORT, which asks for credentials
when UI_PASSWORD is set (and must be set when the stack is exposed). A person picks the user
class (Seg5ViaClonesAxis is ticked) and the shape in the UI (class picker) and sets the
/seg/5 call, think time or open-loop rate and the steps there (loadgen/locustfile.py)."""
from __future__ import annotations

import sys
from pathlib import Path

from testbed import ROOT, procs
from testbed.config import StackConfig

# the users and shapes, and the UI's Testbed tab (loadgen/testbed_tab.py: the tiers while the load runs)
LOCUSTFILES = ",".join(str(ROOT / "loadgen" / f) for f in ("locustfile.py", "shapes.py", "testbed_tab.py"))


def _locust() -> list[str]:
    return [sys.executable, "-m", "locust", "-f", LOCUSTFILES]


def start(cfg: StackConfig, log_dir: Path, zipkin_url: str = "", groups=lambda name: []) -> dict:
    """zipkin_url: tracing on (docs/tracing.md): the users set traceparent on --trace-sample of
    their requests and send their client spans there. groups(name): the cgroup.procs files
    process `name` starts in (its CPU quota, CPUS_LOCUST)."""
    busy = [f"{k}={p}" for k, p in (("TESTBED_REPLICA_PORT_BASE (+990: Locust's web UI)", cfg.locust_web_port),
                                    ("LOCUST_MASTER_PORT", cfg.locust_master_port))
            if not procs.port_free(p, "127.0.0.1")]
    if busy:
        raise procs.ProcError(f"port in use: {', '.join(busy)}; stop what holds it, or set "
                              f"{busy[0].split('=')[0]}=<free port> in .env or the environment")
    n = cfg.locust_worker_count()
    # the Testbed tab reads the stack's state (and HAProxy's stats page, with the UI's credentials)
    tab = {"TESTBED_STATE_DIR": str(cfg.state_dir),
           **{k: cfg.knobs.get(k, "") for k in ("UI_USER", "UI_PASSWORD", "STACK_CPUS", "LOADGEN_CPUS")}}
    traced = {"ZIPKIN_URL": zipkin_url} if zipkin_url else {}
    master = procs.start("locust-master", _locust() + [
        "--master", "--web-host", "127.0.0.1", "--web-port", str(cfg.locust_web_port),
        "--master-bind-host", "127.0.0.1", "--master-bind-port", str(cfg.locust_master_port),
        "--expect-workers", str(n), "--class-picker",
        "-H", f"http://{cfg.client_host}:{cfg.web_port}"], log_dir / "locust-master.log",
        env={**tab, **traced}, port=cfg.locust_web_port, cwd=ROOT, cpus=cfg.loadgen_cpus,
        cgroups=groups("locust-master"))
    workers = [procs.start(f"locust-worker-{i}", _locust() + [
        "--worker", "--master-host", "127.0.0.1", "--master-port", str(cfg.locust_master_port)],
        log_dir / f"locust-worker-{i}.log", env=traced, cwd=ROOT, cpus=cfg.loadgen_cpus,
        cgroups=groups(f"locust-worker-{i}")) for i in range(1, n + 1)]
    return {"master": master, "workers": workers}


def wait(ui: dict, cfg: StackConfig, timeout: float = 60) -> None:
    procs.wait_healthy(ui["master"], direct_url(cfg), timeout)


def url(cfg: StackConfig) -> str:
    """Where people reach the UI: HAProxy's locust_ui entry."""
    return f"http://{cfg.client_host}:{cfg.locust_port}/"


def direct_url(cfg: StackConfig) -> str:
    """The master's own web UI on loopback (what HAProxy forwards to)."""
    return f"http://127.0.0.1:{cfg.locust_web_port}/"


def all_procs(ui: dict | None) -> list[procs.Proc]:
    if not ui:
        return []
    return [ui["master"], *ui["workers"]]


def to_dict(ui: dict | None) -> dict | None:
    return {"master": ui["master"].to_dict(), "workers": [w.to_dict() for w in ui["workers"]]} if ui else None


def from_dict(d: dict | None) -> dict | None:
    return {"master": procs.Proc.from_dict(d["master"]),
            "workers": [procs.Proc.from_dict(w) for w in d["workers"]]} if d else None
