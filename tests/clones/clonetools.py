"""Helpers of the client-tier tests: start the real clone.jar directly on a free loopback
port and talk JSON to it.

The services run on two different ports (tests/conftest.py), so the clone is given one
full endpoint URL per backend (SOAP_URL_AXIS, SOAP_URL_GSOAP) instead of SOAP_URL, under
which both paths would have to exist."""
from __future__ import annotations

import json
import secrets
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from relay import Relay, in_front_of   # tests/relay.py
from stacks import RUN_DIR   # tests/stacks.py: one folder per worker
from testbed import procs, tiers


class Clone:
    """One running clone.jar: its base URL, its process and the header of its admin token
    (what its /probe/build wants: testbed/tiers.py)."""

    def __init__(self, proc: procs.Proc, port: int, token: str | None = None):
        self.proc, self.port = proc, port
        self.base = f"http://127.0.0.1:{port}"
        self.admin = {tiers.ADMIN_HEADER: token} if token else {}

    def get(self, path: str, timeout: float = 60.0) -> tuple[int, dict]:
        return get_json(self.base + path, timeout)

    def invoke(self, timeout: float = 60.0, **params) -> tuple[int, dict]:
        query = "&".join(f"{k}={v}" for k, v in params.items())
        return self.get("/invoke?" + query, timeout)

    def status(self) -> dict:
        code, body = self.get("/status", timeout=10)
        assert code == 200, body
        return body

    def log_text(self) -> str:
        return Path(self.proc.log).read_text(errors="replace")


def get_json(url: str, timeout: float) -> tuple[int, dict]:
    """(HTTP status, parsed JSON body), for error statuses too."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def start_clone(label: str, axis: str, gsoap: str, **env: str) -> Clone:
    """clone.jar with CLIENT_MODE etc. from env, calling the given endpoint URLs."""
    tier = tiers.TIERS["clone"]
    if not tier.built():
        pytest.fail("client-clones/target/clone.jar is not built: "
                    "mvn -B -q package -DskipTests (or ./testbed build)")
    port = procs.free_port()
    token = secrets.token_urlsafe(24)
    extra = {"SOAP_URL_AXIS": axis, "SOAP_URL_GSOAP": gsoap, "SOAP_TIMEOUT_MS": "20000", tiers.ADMIN_ENV: token, **env}
    proc = procs.start(label, tier.argv(), RUN_DIR / f"{label}.log",
                       env=tiers.process_env(tier, port, extra=extra), port=port, cwd=tiers.ROOT)
    try:
        procs.wait_healthy(proc, f"http://127.0.0.1:{port}/health", tier.start_timeout)
    except procs.ProcError as e:
        procs.stop(proc)
        pytest.fail(str(e))
    return Clone(proc, port, extra[tiers.ADMIN_ENV] or None)


def start_relayed(label: str, services: dict[str, str], at_most_s: float = 15.0,
                  **env: str) -> tuple[Clone, dict[str, Relay]]:
    """A clone calling each service (backend -> endpoint) through a relay of its own
    (tests/relay.py): what reached the service, when, and a gate to hold it. A POST held at a
    closed gate is let through after at_most_s at the latest."""
    relays, endpoints = {}, {}
    for backend, endpoint in services.items():
        relays[backend], endpoints[backend] = in_front_of(endpoint, at_most_s)
    try:
        return start_clone(label, endpoints["axis"], endpoints["gsoap"], **env), relays
    except BaseException:
        for r in relays.values():
            r.stop()
        raise


def stop_relayed(clone: Clone, relays: dict[str, Relay]) -> None:
    procs.stop(clone.proc)
    for r in relays.values():
        r.stop()


def dead_endpoint(path: str) -> str:
    """An endpoint on a loopback port nobody listens on: connections are refused."""
    return f"http://127.0.0.1:{procs.free_port()}{path}"


POOL_SIZE = 4   # CLIENT_POOL_SIZE of the pool-mode clone
