"""Your own service when it is an Apache CXF (JAX-WS) service (tests/services/cxf-shop): the client
tier builds its clients from CXF's WSDL and calls it in each lifecycle without generated code, and
CXF's Fault is the service tier's 502 with its reason. One clone, called directly (the path through
the front and HAProxy is test_own_stack.py's)."""
from __future__ import annotations

import json
import shutil
import urllib.error
import urllib.request

import pytest

from stacks import RUN_DIR, start_tier
from testbed import procs, tiers


def _get(url: str, method: str = "GET", headers: dict | None = None) -> tuple[int, dict]:
    req = urllib.request.Request(url, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


@pytest.fixture(scope="module")
def cxf():
    if not shutil.which("mvn") or not shutil.which("java"):
        pytest.skip("Maven and Java build the CXF service")
    from own_services import start_cxf
    RUN_DIR.mkdir(parents=True, exist_ok=True)
    proc, url = start_cxf(procs.free_port(), RUN_DIR / "cxf-shop.log")
    yield url
    proc.kill()
    proc.wait(10)


def _clone(cxf: str, operation: str, folder, token: str):
    from testbed.ownservice import wiring
    knobs = wiring.prepare(cxf, operation, None, {}, folder, log=lambda *a: None)
    env = {"OWN_WSDL": cxf, "OWN_ENDPOINT": cxf.removesuffix("?wsdl"), "OWN_OPERATION": operation,
           "OWN_TEMPLATE": knobs["OWN_TEMPLATE"], tiers.ADMIN_ENV: token}
    return start_tier("clone", f"clone-cxf-{operation}", "/invoke", env)


def test_a_cxf_service_is_called_in_each_lifecycle_and_its_fault_reported(cxf, tmp_path):
    token = "cxf-test-token-0123456789"
    clone = _clone(cxf, "total", tmp_path, token)
    try:
        base = f"http://127.0.0.1:{clone.port}"
        for mode in ("singleton", "request", "pool"):
            status, switched = _get(f"{base}/lifecycle?mode={mode}&pool_size=2", "POST", {tiers.ADMIN_HEADER: token})
            assert status == 200, switched
            status, answer = _get(f"{base}/invoke?backend=own&n=4")
            assert status == 200 and answer["ok"], answer
            assert "<total>6.0</total>" in answer["answer"], answer      # 4 items of 1.5 reached CXF
        status, st = _get(f"{base}/status")
        assert st["backends"]["own"]["wsdl_failures"] == 0 and st["backends"]["own"]["wsdl_loads"] >= 4
    finally:
        procs.stop(clone.proc)
    clone = _clone(cxf, "fail", tmp_path, token)
    try:
        status, answer = _get(f"http://127.0.0.1:{clone.port}/invoke?backend=own")
        assert status == 502 and answer["tier"] == "soap-service", answer
        assert answer["error"].startswith("SOAP fault") and "text" in answer["error"], answer
    finally:
        procs.stop(clone.proc)
