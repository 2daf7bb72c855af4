"""Exposure (docs/reliability.md): the entry points, the stats page and the Locust UI listen on loopback
by default; with UI_PASSWORD set, HAProxy asks for credentials on the stats page (and
/metrics) and the Locust UI, never on the load entry points; binding beyond loopback without
a password is refused; the runtime API is a unix socket, never a port."""
from __future__ import annotations

import base64
import urllib.error
import urllib.request

import pytest

from stacks import make_stack_config
from testbed.haproxy import config as haproxy
from testbed.stacks.local import LocalStack

pytestmark = [pytest.mark.stack, pytest.mark.own_stack]    # stacks of its own, one per UI setting


def _status(url: str, auth: str | None = None) -> int:
    headers = {"Authorization": "Basic " + base64.b64encode(auth.encode()).decode()} if auth else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def test_binding_beyond_loopback_without_a_password_is_refused_before_anything_starts():
    cfg = make_stack_config("exposed", {"UI_PASSWORD": ""})
    cfg.bind = "0.0.0.0"
    st = LocalStack(cfg, log=lambda *a: None)
    with pytest.raises(haproxy.HaproxyError, match="set UI_PASSWORD"):
        st.up({"front": 1})
    assert not st.running()


def test_with_a_password_both_uis_ask_for_it_and_the_entry_points_do_not():
    cfg = make_stack_config("ui-auth", {"UI_USER": "ops", "UI_PASSWORD": "s3cret"})
    st = LocalStack(cfg, log=lambda *a: None)
    try:
        st.up({"front": 1}, locust=True)
        stats = f"http://127.0.0.1:{cfg.stats_port}/"
        ui = f"http://127.0.0.1:{cfg.locust_port}/"
        assert _status(stats) == 401 and _status(stats + "metrics") == 401 and _status(ui) == 401
        assert _status(stats, "ops:wrong") == 401
        assert _status(stats, "ops:s3cret") == 200 and _status(ui, "ops:s3cret") == 200
        assert _status(f"http://127.0.0.1:{cfg.web_port}/seg/1") == 200
        # every listening socket of HAProxy: the runtime API is a unix socket only
        text = (st.dir / "haproxy.cfg").read_text()
        assert "stats socket " + str(st.dir / "haproxy.sock") in text
        assert all(line.split()[1].startswith("127.0.0.1:") for line in text.splitlines()
                   if line.strip().startswith("bind "))
    finally:
        st.down()
