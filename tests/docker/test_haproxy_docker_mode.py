"""The docker mode of the HAProxy config (cli/testbed/haproxy/config.py render_docker, rendered
by the haproxy container at start): a server-template per tier resolved by Docker's DNS,
accepted by `haproxy -c` for every gSOAP server model; local mode's config unchanged."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from testbed import ROOT, tiers
from testbed.haproxy import config as haproxy
from testbed.config import StackConfig, read_env_file

KNOBS = {**read_env_file(ROOT / ".env"), "PUBLISHED_ON": "127.0.0.1"}   # compose, published on loopback


def test_docker_mode_haproxy_config_has_a_server_template_per_tier():
    text = haproxy.render_docker(KNOBS)
    assert "resolvers docker" in text and "nameserver dns 127.0.0.11:53" in text
    for tier in haproxy.BACKENDS:
        assert re.search(rf"^    server-template {tier} 1-{tiers.MAX_REPLICAS} {tier}:{haproxy.DOCKER_TIER_PORT} "
                         rf".*resolvers docker .*init-addr none maxconn {haproxy.server_maxconn(tier, KNOBS)}$",
                         text, re.MULTILINE), tier


def test_local_mode_config_has_no_resolvers_section():
    text = haproxy.render(StackConfig(knobs=KNOBS), {"front": haproxy.local_servers("front", [(1, 19301)], KNOBS)})
    assert not re.search(r"^resolvers |^\s+server-template ", text, re.MULTILINE)


@pytest.mark.skipif(not shutil.which("haproxy"), reason="haproxy not installed")
@pytest.mark.parametrize("model", ["pool", "iterative", "thread"])
def test_docker_mode_haproxy_config_passes_haproxy_check(tmp_path, model):
    state = tmp_path / "run"
    state.mkdir()
    (state / "haproxy.state").write_text("1\n")
    text = haproxy.render_docker({**KNOBS, "GSOAP_SERVER_MODEL": model})
    cfg = tmp_path / "haproxy.cfg"
    cfg.write_text(text.replace(str(haproxy.DOCKER_STATE_DIR), str(state)))
    r = subprocess.run(["haproxy", "-c", "-f", str(cfg)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_stack_exposed_without_a_ui_password_is_refused_and_with_one_every_ui_asks_for_it(tmp_path):
    cfg = StackConfig(bind="0.0.0.0", state_dir=tmp_path, knobs={**KNOBS, "UI_PASSWORD": ""})
    with pytest.raises(haproxy.HaproxyError, match="BIND_ADDRESS=0.0.0.0 exposes .*set UI_PASSWORD"):
        haproxy.render(cfg, {})
    cfg.knobs.update(UI_USER="ops", UI_PASSWORD="s3cret")
    text = haproxy.render(cfg, {})
    assert "user ops insecure-password s3cret" in text
    for frontend in ("stats", "locust_ui", "prometheus_ui", "zipkin_ui"):
        section = text.split(f"frontend {frontend}\n")[1].split("\nbackend")[0].split("\nfrontend")[0]
        assert "http-request auth realm testbed unless { http_auth(ui_users) }" in section, frontend
    web = text.split("frontend web\n")[1].split("\nfrontend")[0]
    assert "http_auth" not in web                      # the load entry points stay open
    assert haproxy.render(StackConfig(bind="127.0.0.1", state_dir=tmp_path, knobs=KNOBS), {}).count("http_auth") == 0
