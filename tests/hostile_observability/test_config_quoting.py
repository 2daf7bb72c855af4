"""User-given values that reach a configuration file are written by that file's rules, or refused
with a message naming the fix: UI_PASSWORD (and UI_USER) in HAProxy's userlist
(cli/testbed/haproxy/config.py ui_auth, word), the state folder's path in HAProxy's global
section, the password in Prometheus' basic_auth for HAProxy's stats page (observe/monitoring.py).

Each password holds one character (or sequence) that means something to HAProxy's parser; a real
HAProxy runs the rendered configuration on loopback: the exact password opens the stats page, the
same password with that character changed does not, and the CLI's own header (ui_headers) opens
it too."""
from __future__ import annotations

import json
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

import pytest
import requests

from polling import until
from testbed import procs
from testbed.config import StackConfig
from testbed.haproxy import config as haproxy
from testbed.observe import monitoring

yaml = pytest.importorskip("yaml", reason="PyYAML reads the rendered Prometheus configuration")

# (id, password, the same password with the special part changed)
PASSWORDS = [
    ("space", "pass word", "passxword"),
    ("hash", "pass#word", "passxword"),
    ("hash-first", "#password", "xpassword"),
    ("backslash", "pass\\word", "passxword"),
    ("backslash-last", "password\\", "passwordx"),
    ("backslash-escape", "pass\\x41word", "passAword"),
    ("single-quote", "pass'word", "passxword"),
    ("single-quotes-around", "'password'", "password"),
    ("double-quote", 'pass"word', "passxword"),
    ("dollar", "pass$word", "passxword"),
    ("env-braces", "${HOME}", "HOME"),
    ("env-plain", "$HOME", "xHOME"),
    ("brace", "pass{word", "passxword"),
    ("acl-braces", "{ always_true }", "x always_true }"),
    ("leading-space", " password", "password"),
    ("trailing-space", "password ", "password"),
    ("colon", "pass:word", "passxword"),
    ("template-placeholder", "@BIND@", "127.0.0.1"),
    ("every-one", " #\\'\"${x}; %@:", " #\\'\"${x}; %@x"),
]

REFUSED = [("newline", "pass\nword"), ("carriage-return", "pass\rword"), ("tab", "pass\tword"),
           ("nul", "pass\0word"), ("delete", "pass\x7fword"), ("non-ascii", "pässword"),
           ("line-separator", "pass\u2028word"), ("too-long", "x" * (haproxy.PASSWORD_MAX + 1))]


@pytest.fixture
def tmp_path():
    """A short folder whose name HAProxy must be told quoted (its stats socket's path must stay
    under 98 characters, which pytest's own tmp_path is not)."""
    path = Path(tempfile.mkdtemp(prefix="tb '# "))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _config(tmp_path: Path, password: str) -> StackConfig:
    ports = [procs.free_port() for _ in range(8)]
    state = tmp_path / "s"
    state.mkdir()
    return StackConfig(bind="127.0.0.1", web_port=ports[0], clones_port=ports[1], soap_port=ports[2],
                       stats_port=ports[3], bound_port=ports[4], locust_port=ports[5], prometheus_port=ports[6],
                       zipkin_port=ports[7], state_dir=state,
                       knobs={"UI_USER": "ops", "UI_PASSWORD": password})


def _render(cfg: StackConfig) -> Path:
    path = cfg.state_dir / "haproxy.cfg"
    path.write_text(haproxy.render(cfg, {}), encoding="utf-8")
    return path


@pytest.mark.parametrize("password,other", [p[1:] for p in PASSWORDS], ids=[p[0] for p in PASSWORDS])
def test_a_running_haproxy_takes_exactly_the_password_given(tmp_path, password, other):
    cfg = _config(tmp_path, password)
    path = _render(cfg)
    haproxy.check(path)                                   # haproxy -c: no parse error, no warning turned fatal
    proc = subprocess.Popen(["haproxy", "-f", str(path)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stats = f"http://127.0.0.1:{cfg.stats_port}/;csv"
    try:
        def answers():
            try:
                return requests.get(stats, timeout=2).status_code == 401
            except requests.ConnectionError:
                assert proc.poll() is None, proc.stderr.read().decode(errors="replace")
                return False
        until("HAProxy's stats page to ask for credentials", answers, timeout=30)
        assert requests.get(stats, auth=("ops", password), timeout=5).status_code == 200
        assert requests.get(stats, headers=cfg.ui_headers(), timeout=5).status_code == 200    # the CLI's own
        assert requests.get(stats, auth=("ops", other), timeout=5).status_code == 401
        assert requests.get(stats, auth=("ops", password + "x"), timeout=5).status_code == 401
        assert (cfg.state_dir / "haproxy.sock").exists()   # the quoted state folder is the one used
    finally:
        proc.send_signal(signal.SIGTERM)                   # the master stops its workers at once and exits
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=15)


@pytest.mark.parametrize("password", [p[1] for p in REFUSED], ids=[p[0] for p in REFUSED])
def test_a_password_haproxy_cannot_hold_is_refused_with_the_fix(tmp_path, password):
    with pytest.raises(haproxy.HaproxyError, match="UI_PASSWORD: printable ASCII characters only"):
        haproxy.render(_config(tmp_path, password), {})


@pytest.mark.parametrize("user", ["o ps", "o#ps", "o'ps", "o:ps", "o\nps"])
def test_a_user_name_outside_its_characters_is_refused_naming_it(tmp_path, user):
    cfg = _config(tmp_path, "s3cret")
    cfg.knobs["UI_USER"] = user
    with pytest.raises(haproxy.HaproxyError, match="UI_USER=.*letters, digits"):
        haproxy.render(cfg, {})


@pytest.mark.parametrize("value,name", [("/tmp/a\nb", "TESTBED_STATE_DIR"), ("/tmp/$HOME", "TESTBED_STATE_DIR"),
                                        ("127.0.0.1 ssl", "BIND_ADDRESS"),
                                        ("127.0.0.1\n    stats admin if TRUE", "BIND_ADDRESS")])
def test_a_path_or_address_that_would_change_the_config_is_refused(tmp_path, value, name):
    cfg = _config(tmp_path, "s3cret")
    if name == "BIND_ADDRESS":
        cfg.bind = value
    else:
        cfg.state_dir = Path(value)
    with pytest.raises(haproxy.HaproxyError, match=name):
        haproxy.render(cfg, {})


def test_a_plain_password_is_written_as_before():
    """Only a password that needs quotes gets them (the docker-mode tests read the plain form)."""
    assert haproxy.word("s3cret", "UI_PASSWORD") == "s3cret"
    assert haproxy.word("a'b", "UI_PASSWORD") == "'a'\\''b'"


def _haproxy_job(text: str) -> dict:
    doc = yaml.safe_load(text)
    return next(j for j in doc["scrape_configs"] if j["job_name"] == "haproxy")


@pytest.mark.parametrize("password", [p[1] for p in PASSWORDS], ids=[p[0] for p in PASSWORDS])
def test_prometheus_reads_back_exactly_the_password(tmp_path, password):
    cfg = _config(tmp_path, password)
    for text in (monitoring.local_config(cfg), monitoring.docker_config(cfg.knobs)):
        assert _haproxy_job(text)["basic_auth"] == {"username": "ops", "password": password}


@pytest.mark.skipif(not shutil.which("promtool"), reason="promtool (Debian's prometheus package) checks the file")
def test_promtool_accepts_the_configuration_with_every_special_character(tmp_path):
    cfg = _config(tmp_path, PASSWORDS[-1][1])
    path = tmp_path / "prometheus.yml"
    path.write_text(monitoring.local_config(cfg), encoding="utf-8")
    r = subprocess.run(["promtool", "check", "config", "--syntax-only", str(path)], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(path.read_text())["scrape_configs"]     # JSON, which YAML reads as written
