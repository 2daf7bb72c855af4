"""The docker mode of the HAProxy config (cli/testbed/haproxy.py render_docker, rendered
by the haproxy container at start): a server-template per tier resolved by Docker's DNS,
accepted by `haproxy -c` for every gSOAP server model; local mode's config unchanged."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from testbed import ROOT, haproxy, tiers
from testbed.config import StackConfig, read_env_file

KNOBS = read_env_file(ROOT / ".env")


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
