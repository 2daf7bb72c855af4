"""The clone's build probe (`POST /probe/build`: up to 64 threads for 60 s) is refused by the clone
itself unless the request carries the stack's admin token (java-common AdminGate,
cli/testbed/tiers.py), whatever spelling of the path Tomcat maps to it; HAProxy's clones entry
refuses every such spelling too (its second layer). The read-only endpoints stay open.

Each spelling is sent raw (http.client sends the path as written; a URL library would tidy it) to
HAProxy and straight to the clone: without the token it is refused and the probe does not run (the
clone's WSDL loads, one per client built, do not move); with the token, straight to the clone, it
runs — which shows the spelling does reach the probe."""
from __future__ import annotations

import http.client
import json
import os
import stat

import pytest

from testbed import tiers
from testbed.fit import buildprobe

pytestmark = pytest.mark.stack

PROBE = "backend=axis&n=1&threads=1&seconds=10"
# every one of these is /probe/build once Tomcat has decoded %XX, dropped ;parameters, merged
# slashes and resolved . and .. segments
SPELLINGS = [
    "/probe/build",
    "//probe/build",
    "/probe//build",
    "///probe///build",
    "/./probe/build",
    "/probe/./build",
    "/x/../probe/build",
    "/probe/x/../build",
    "/probe;x/build",
    "/probe/build;x=1",
    "/probe;a=b/build;c=d",
    "/%70robe/build",
    "/probe/%62uild",
    "/%70%72%6F%62%65/%62%75%69%6C%64",
    "/%2e/probe/build",
    "/x/%2E%2E/probe/build",
    "/PROBE/../probe/build",
]


def _post(port: int, path: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request("POST", path, body=b"", headers=headers or {})
        r = conn.getresponse()
        return r.status, r.read().decode("utf-8", "replace")
    finally:
        conn.close()


def _get(port: int, path: str) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path)
        r = conn.getresponse()
        return r.status, r.read().decode("utf-8", "replace")
    finally:
        conn.close()


@pytest.fixture(scope="module")
def clone(stack):
    """(the clone replica's own port, the stack's admin header)."""
    rep = next(r for r in stack.status()["replicas"] if r["tier"] == "clone")
    return rep["port"], stack.admin_headers()


def _builds(port: int) -> int:
    """Clients the clone built for axis since it started (each build loads the WSDL once)."""
    code, body = _get(port, "/status")
    assert code == 200, body
    return json.loads(body)["backends"]["axis"]["wsdl_loads"]


def _sep(path: str) -> str:
    return f"{path}{'&' if '?' in path else '?'}{PROBE}"


@pytest.mark.parametrize("path", SPELLINGS)
def test_each_spelling_without_the_token_is_refused_by_haproxy_and_by_the_clone(stack, clone, path):
    port, token = clone
    before = _builds(port)
    for headers in ({}, {tiers.ADMIN_HEADER: "not-the-token-but-long-enough"}):
        code, body = _post(stack.cfg.clones_port, _sep(path), headers)     # HAProxy's clones entry
        assert code in (403, 404), (code, body)
        assert "admin endpoint" not in body, body            # HAProxy's own refusal: the clone never saw it
        code, body = _post(port, _sep(path), headers)                        # the replica itself
        assert code == 403 and "admin endpoint" in json.loads(body)["error"], (code, body)
    # even with the right token, HAProxy's entry refuses it: the probe is asked of a replica
    code, body = _post(stack.cfg.clones_port, _sep(path), token)
    assert code == 403, (code, body)
    assert _builds(port) == before                           # the probe never ran


@pytest.mark.parametrize("path", SPELLINGS)
def test_each_spelling_with_the_token_straight_to_the_clone_runs_the_probe(clone, path):
    port, token = clone
    assert token, "the stack's up made no admin token"
    before = _builds(port)
    code, body = _post(port, _sep(path), token)
    assert code == 200, (code, body)
    assert json.loads(body)["built"] == 1
    assert _builds(port) == before + 1


@pytest.mark.parametrize("header", [
    pytest.param(lambda t: {tiers.ADMIN_HEADER: t.upper() if t != t.upper() else t.lower()}, id="other-case"),
    pytest.param(lambda t: {tiers.ADMIN_HEADER: t[:-1]}, id="one-character-short"),
    pytest.param(lambda t: {tiers.ADMIN_HEADER: t + "x"}, id="one-character-more"),
    pytest.param(lambda t: {"Authorization": f"Bearer {t}"}, id="another-header"),
])
def test_a_token_that_is_not_exactly_the_stacks_is_refused(clone, header):
    port, token = clone
    before = _builds(port)
    code, body = _post(port, _sep("/probe/build"), header(token[tiers.ADMIN_HEADER]))
    assert code == 403, (code, body)
    assert _builds(port) == before


def test_the_token_twice_is_refused(clone):
    port, token = clone
    before = _builds(port)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.putrequest("POST", _sep("/probe/build"))
        for _ in range(2):
            conn.putheader(tiers.ADMIN_HEADER, token[tiers.ADMIN_HEADER])
        conn.putheader("Content-Length", "0")
        conn.endheaders()
        r = conn.getresponse()
        assert r.status == 403, r.read()
    finally:
        conn.close()
    assert _builds(port) == before


def test_the_runners_probe_sends_the_token_and_runs(stack, clone):
    """fit/buildprobe.py asks the replica as the runner does: with the stack's token."""
    port, _ = clone
    url, _, headers = buildprobe._clone_url(stack)
    assert url == f"http://127.0.0.1:{port}"
    body = buildprobe._post(url, headers, "axis", 5)
    assert body["built"] > 0 and body["failed"] == 0, body
    with pytest.raises(buildprobe.ProbeError, match="HTTP 403"):
        buildprobe._post(url, {}, "axis", 5)


@pytest.mark.parametrize("path", ["/health", "/status", "/served"])
def test_read_only_endpoints_stay_open(stack, clone, path):
    port, _ = clone
    assert _get(port, path)[0] == 200
    assert _get(stack.cfg.clones_port, path)[0] == 200


def test_the_token_is_kept_for_its_owner_only_and_never_on_a_command_line(stack, clone):
    port, headers = clone
    token = headers[tiers.ADMIN_HEADER]
    path = tiers.admin_token_path(stack.cfg.state_dir)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert len(token) >= 32
    rep = next(r for r in stack.load()["replicas"]["clone"])
    with open(f"/proc/{rep['proc'].pid}/cmdline", "rb") as f:
        assert token.encode() not in f.read()
    assert token not in (stack.cfg.state_dir / "state.json").read_text()
