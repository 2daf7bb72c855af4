"""Your own SOAP service in the stack: a spyne service (tests/own_services.py) none of the project's
code wrote, started here on loopback, put behind HAProxy's /own by the WSDL alone, and called through
the whole request path (front → clone → HAProxy → the service) in each client lifecycle; its Fault
and an HTML answer reported as the service tier's, with the reason."""
from __future__ import annotations

import json
import shutil
import subprocess
import urllib.error
import urllib.parse
import urllib.request

import pytest

from stacks import make_stack_config


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


@pytest.fixture(scope="module")
def shop():
    pytest.importorskip("spyne")
    from own_services import start_shop
    srv, url = start_shop()
    yield url
    srv.shutdown()


@pytest.fixture(scope="module")
def own_stack(shop, tmp_path_factory):
    """front and clone ×1 (no contract service: the own one is all they call), the shop's total."""
    from testbed.ownservice import wiring
    from testbed.stacks.local import LocalStack
    folder = tmp_path_factory.mktemp("own")
    knobs = wiring.prepare(shop, "total", None, {}, folder, log=lambda *a: None)
    st = LocalStack(make_stack_config("own-stack"), log=lambda *a: None)
    if st.running():
        st.down()
    try:
        st.up({"front": 1, "clone": 1}, {"CLIENT_MODE": "singleton", **knobs})
    except Exception as e:
        st.down()
        pytest.fail(f"stack did not start: {e}")
    st.folder = folder
    yield st
    st.down()


def _clone_url(st) -> str:
    (rep,) = [r for r in st.status()["replicas"] if r.get("tier") == "clone"]
    return rep["url"]


@pytest.mark.parametrize("lifecycle", ["singleton", "request", "pool"])
def test_seg5_reaches_your_service_in_each_lifecycle(own_stack, lifecycle):
    st = own_stack
    st.switch_lifecycle("clone", {"CLIENT_MODE": lifecycle, "CLIENT_POOL_SIZE": "2"})
    web = st.entry_points()["web"]
    status, page = _get(f"{web}/seg/5?backend=own&n=5")
    assert status == 200, page
    assert "soap-result: ok=true" in page
    # the template expanded to 5 items of price 1.5 reached the service: it answered their total
    status, body = _get(f"{_clone_url(st)}/invoke?backend=own&n=5")
    answer = json.loads(body)
    assert status == 200 and answer["ok"] and answer["op"] == "total", body
    assert ">7.5<" in answer["answer"], answer
    status, body = _get(f"{_clone_url(st)}/invoke?backend=own&n=0")
    assert ">0<" in json.loads(body)["answer"], body
    status, body = _get(f"{_clone_url(st)}/status")
    assert json.loads(body)["mode"] == lifecycle
    assert json.loads(body)["backends"]["own"]["wsdl_failures"] == 0


def test_bad_requests_to_your_service_are_refused_with_the_reason(own_stack):
    clone = _clone_url(own_stack)
    status, body = _get(f"{clone}/invoke?backend=own&op=fail")
    assert status == 400 and "backend=own calls total" in body
    status, body = _get(f"{clone}/invoke?backend=own&n=100001")
    assert status == 400 and "from 0 to 100000" in body
    web = own_stack.entry_points()["web"]
    status, page = _get(f"{web}/seg/5?backend=own&op=%3Cscript%3E")
    assert status == 400 and "name of your service" in page


def test_a_fault_is_the_service_tiers_through_the_whole_path(own_stack, shop):
    """The module's last use of the stack: its clone is left calling fail."""
    from testbed.ownservice import wiring
    st = own_stack
    knobs = wiring.prepare(shop, "fail", None, {}, st.folder, log=lambda *a: None)
    st.restart("clone", {"OWN_OPERATION": "fail", "OWN_TEMPLATE": knobs["OWN_TEMPLATE"]})
    status, page = _get(f"{st.entry_points()['web']}/seg/5?backend=own")
    assert status == 502 and "failing-tier: soap-service" in page and "SOAP fault Client" in page, page


def test_an_html_answer_is_the_service_tiers_with_the_reason(shop, tmp_path):
    from stacks import start_tier
    from testbed import procs
    from testbed.ownservice import wiring
    knobs = wiring.prepare(shop, "total", None, {}, tmp_path, log=lambda *a: None)
    from own_services import Canned
    html = Canned({}, post=(500, "text/html", b"<html><body><h1>Service Unavailable</h1></body></html>"))
    clone = start_tier("clone", "clone-own-html", "/invoke", {
        "OWN_WSDL": shop, "OWN_ENDPOINT": html.url("/"), "OWN_OPERATION": "total",
        "OWN_TEMPLATE": knobs["OWN_TEMPLATE"]})
    try:
        status, body = _get(f"http://127.0.0.1:{clone.port}/invoke?backend=own")
        answer = json.loads(body)
        assert status == 502 and answer["tier"] == "soap-service", body
        assert "not a SOAP message" in answer["error"] and "html" in answer["error"], body
    finally:
        procs.stop(clone.proc)
        html.shutdown()
        html.server_close()


@pytest.mark.skipif(not shutil.which("haproxy"), reason="haproxy not installed")
def test_haproxy_gets_a_third_backend_only_for_a_service_given(tmp_path):
    from testbed.config import StackConfig
    from testbed.haproxy import config as haproxy

    def rendered(knobs):
        cfg = StackConfig(state_dir=tmp_path, knobs=knobs)
        text = haproxy.render(cfg, {})
        path = tmp_path / "haproxy.cfg"
        path.write_text(text)
        (tmp_path / "haproxy.state").write_text("1\n")
        r = subprocess.run(["haproxy", "-c", "-f", str(path)], capture_output=True, text=True)
        assert r.returncode == 0, r.stdout + r.stderr
        return text
    assert "server own1" not in rendered({})
    text = rendered({"OWN_SERVER": "127.0.0.1:18700"})
    assert "server own1 127.0.0.1:18700 check" in text and "set-header Host 127.0.0.1:18700" in text
    for bad in ("127.0.0.1:18700 backup", "127.0.0.1:0", "h\n:1", "127.0.0.1"):
        with pytest.raises(haproxy.HaproxyError, match="OWN_SERVER"):
            haproxy.render(StackConfig(state_dir=tmp_path, knobs={"OWN_SERVER": bad}), {})


def test_a_service_the_stack_cannot_call_is_refused_before_anything_starts(shop, tmp_path):
    from testbed.ownservice import wiring, wsdl
    with urllib.request.urlopen(shop, timeout=10) as r:
        text = r.read().decode()
    port = urllib.parse.urlparse(shop).port
    cases = {"https.wsdl": (text.replace(f"http://127.0.0.1:{port}/", "https://127.0.0.1:8443/"), "https"),
             "file.wsdl": (text, "fetches the WSDL over http")}
    for name, (doc, said) in cases.items():
        (tmp_path / name).write_text(doc)
        with pytest.raises(wsdl.ServiceError, match=said):
            wiring.prepare(str(tmp_path / name), "total", None, {}, tmp_path / "out", log=lambda *a: None)
    (tmp_path / "bad.xml").write_text("<ns0:total xmlns:ns0='urn:shop'><ns0:basket/></ns0:total>")
    with pytest.raises(wsdl.ServiceError, match="basket"):
        wiring.prepare(shop, "total", tmp_path / "bad.xml", {}, tmp_path / "out", log=lambda *a: None)
    (tmp_path / "param.xml").write_text("<ns0:fail xmlns:ns0='urn:shop'><ns0:why>${why}</ns0:why></ns0:fail>")
    with pytest.raises(wsdl.ServiceError, match="--param why=VALUE"):
        wiring.prepare(shop, "fail", tmp_path / "param.xml", {}, tmp_path / "out", log=lambda *a: None)
    knobs = wiring.prepare(shop, "fail", tmp_path / "param.xml", {"why": "<&>"}, tmp_path / "out", log=lambda *a: None)
    assert "<ns0:why>&lt;&amp;&gt;</ns0:why>" in (tmp_path / "out" / "fail.xml").read_text()
    assert knobs["OWN_SERVER"] == f"127.0.0.1:{port}" and knobs["OWN_ENDPOINT"] == "/own/"
    assert knobs["OWN_WSDL"] == "/own/?wsdl" and knobs["OWN_OPERATION"] == "fail"
