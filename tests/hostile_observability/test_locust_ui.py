"""Posts to the Locust web UI of the testbed (loadgen/ui_guard.py, docs/reliability.md): a post sets
only the fields the page shows, the others are refused with 400 and change nothing (no file at a
posted path, the step log and the span endpoint as started, no test started); a post from another
origin is refused with 403 on every state-changing route and changes nothing; the page's own posts
and a program's posts still work, straight to the master and through HAProxy's locust_ui entry with
UI_PASSWORD set. A real master (the command line of `./testbed up`, the step log and the Zipkin URL
set at start) and one worker on loopback; the users' requests go to a closed port."""
from __future__ import annotations

import csv
import io
import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import requests

from polling import until
from testbed import procs
from testbed.stacks import locust_ui

pytestmark = pytest.mark.timeout(300)


class _Zipkin(BaseHTTPRequestHandler):
    """A stand-in Zipkin on loopback: counts the span batches posted to it."""
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path == "/api/v2/spans":
            self.server.batches += 1
        self.send_response(202)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *_args):
        pass


def _zipkin() -> ThreadingHTTPServer:
    srv = ThreadingHTTPServer(("127.0.0.1", procs.free_port()), _Zipkin)
    srv.batches = 0
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def _master_argv(web_port: int, master_port: int | None, extra: list[str]) -> list[str]:
    distributed = ["--master", "--master-bind-host", "127.0.0.1", "--master-bind-port", str(master_port),
                   "--expect-workers", "1"] if master_port else []
    return [sys.executable, "-m", "locust", "-f", locust_ui.LOCUSTFILES, "--web-host", "127.0.0.1",
            "--web-port", str(web_port), "--class-picker", *distributed, *extra]


@pytest.fixture(scope="module")
def ui(tmp_path_factory):
    """The master's own UI (as locust_ui.start starts it, with --step-log and ZIPKIN_URL), one worker."""
    tmp = tmp_path_factory.mktemp("locust-ui-posts")
    started, posted = _zipkin(), _zipkin()
    web_port, master_port = procs.free_port(), procs.free_port()
    target = f"http://127.0.0.1:{procs.free_port()}"                  # nothing listens: requests fail
    env = {"ZIPKIN_URL": f"http://127.0.0.1:{started.server_port}", "TRACING": "1"}
    master = procs.start("locust-master", _master_argv(web_port, master_port, [
        "-H", target, "--step-log", str(tmp / "started-steps.jsonl")]), tmp / "master.log",
        env=env, port=web_port, cwd=locust_ui.ROOT)
    worker = procs.start("locust-worker", [sys.executable, "-m", "locust", "-f", locust_ui.LOCUSTFILES, "--worker",
                                           "--master-host", "127.0.0.1", "--master-port", str(master_port)],
                         tmp / "worker.log", env=env, cwd=locust_ui.ROOT)
    url = f"http://127.0.0.1:{web_port}/"
    try:
        procs.wait_healthy(master, url, 120)
        until("the worker to connect", lambda: requests.get(url + "stats/requests", timeout=10).json()
              .get("worker_count") == 1, timeout=90, interval=0.5)
        yield {"url": url, "origin": url.rstrip("/"), "port": web_port, "tmp": tmp, "target": target,
               "started": started, "posted": posted}
    finally:
        for p in (worker, master):
            procs.stop(p)
        for srv in (started, posted):
            srv.shutdown()


def page(url: str) -> dict:
    """window.templateArgs of the page: read live at every load (the state, the user classes)."""
    m = re.search(r"window\.templateArgs = (\{.*\})\s*$", requests.get(url, timeout=10).text, re.M)
    assert m, "no window.templateArgs in the page"
    return json.loads(m.group(1))


def start_form(ui) -> dict:
    """What the page posts to start the step shape: Locust's fields and shown custom parameters."""
    return {"user_classes": ["Seg1StaticPage"], "user_count": "1", "spawn_rate": "1", "host": ui["target"],
            "shape_class": "StepLoadShape", "step_users": "1", "step_seconds": "600", "step_warmup_seconds": "0",
            "closed_loop_think_time": "0.2", "trace_sample": "1"}


def same_origin(ui) -> dict:
    """The headers of the page's own post, as a browser sends them."""
    return {"Origin": ui["origin"], "Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors",
            "Sec-Fetch-Dest": "empty"}


def idle(ui) -> bool:
    """No test started: a start of the step shape puts the runner in "init" before it answers."""
    return page(ui["url"])["state"] in ("ready", "stopped")


def serving(ui) -> None:
    assert requests.get(ui["url"], timeout=10).status_code == 200
    assert requests.get(ui["url"] + "stats/requests", timeout=10).json()["worker_count"] == 1


def counted(ui) -> int:
    """Requests counted so far, read live (the JSON of /stats/requests is cached for a while)."""
    rows = list(csv.DictReader(io.StringIO(requests.get(ui["url"] + "stats/requests/csv", timeout=10).text)))
    return int(next(r for r in rows if r["Name"] == "Aggregated")["Request Count"])


def spawned(ui) -> None:
    """Wait for a start to finish: a stop while the workers spawn makes Locust's master lose its
    worker ("spawning_complete message from unknown worker")."""
    until("the users to be spawned", lambda: page(ui["url"])["state"] not in ("init", "spawning"),
          timeout=90, interval=0.2)


def stop_and_reset(ui) -> None:
    spawned(ui)
    assert requests.post(ui["url"] + "stop", headers=same_origin(ui), timeout=10).status_code == 200
    until("the run to stop", lambda: idle(ui), timeout=90, interval=0.5)
    requests.post(ui["url"] + "stats/reset", headers=same_origin(ui), timeout=10)


# Options the page does not show, each with a value as a poster would choose it: "{tmp}" the test's
# folder, "{zipkin}" a Zipkin other than the one given at start.
HIDDEN = {
    "step_log": "{tmp}/posted-steps.jsonl", "step_hold_release": "{tmp}/posted-release",
    "zipkin_url": "{zipkin}", "backend": "gsoap",
    "json_file": "{tmp}/posted-stats", "html_file": "{tmp}/posted.html", "csv_prefix": "{tmp}/posted-csv",
    "logfile": "{tmp}/posted.log", "stop_timeout": "0", "tags": "nothing", "exclude_tags": "seg",
    "expect_workers": "9", "headless": "true", "reset_stats": "true", "loglevel": "DEBUG",
    "num_users": "500",              # Locust's option under a name its form does not post (user_count)
    "web_port": "1",
    "no_such_field": "x",            # no option at all
}
WRITES = {"step_log": "posted-steps.jsonl", "json_file": "posted-stats.json", "html_file": "posted.html",
          "csv_prefix": "posted-csv_stats.csv", "logfile": "posted.log"}    # the file a value names


def hidden(ui, field: str) -> str:
    zipkin = f"http://127.0.0.1:{ui['posted'].server_port}"
    return HIDDEN[field].replace("{tmp}", str(ui["tmp"])).replace("{zipkin}", zipkin)


@pytest.mark.parametrize("field", HIDDEN)
def test_a_hidden_option_in_a_same_origin_post_is_refused_and_changes_nothing(ui, field):
    r = requests.post(ui["url"] + "swarm", data={**start_form(ui), field: hidden(ui, field)},
                      headers=same_origin(ui), timeout=10)
    assert r.status_code == 400, r.text
    assert field in r.json()["message"] and r.json()["success"] is False
    assert idle(ui), "a refused post started a test"
    assert field not in WRITES or not (ui["tmp"] / WRITES[field]).exists()
    serving(ui)


def test_every_refused_field_is_named_and_the_shown_ones_are_not(ui):
    both = {"step_log": hidden(ui, "step_log"), "zipkin_url": hidden(ui, "zipkin_url")}
    r = requests.post(ui["url"] + "swarm", data={**start_form(ui), **both}, timeout=10)    # a program's post
    assert r.status_code == 400
    named = r.json()["message"].split("cannot set ", 1)[1].split(":", 1)[0]
    assert named.split(", ") == ["step_log", "zipkin_url"]          # and none of the form's own fields
    assert idle(ui)


def test_the_step_log_and_the_span_endpoint_stay_as_started_after_refused_posts(ui):
    started_log, posted_log = ui["tmp"] / "started-steps.jsonl", ui["tmp"] / "posted-steps.jsonl"
    for field in ("step_log", "zipkin_url", "step_hold_release"):
        r = requests.post(ui["url"] + "swarm", data={**start_form(ui), field: hidden(ui, field)},
                          headers=same_origin(ui), timeout=10)
        assert r.status_code == 400
    lines_before = started_log.read_text().count("\n") if started_log.exists() else 0
    r = requests.post(ui["url"] + "swarm", data=start_form(ui), headers=same_origin(ui), timeout=10)
    assert r.status_code == 200 and r.json()["success"], r.text
    try:
        until("the step's start in the step log given at start",
              lambda: started_log.exists() and started_log.read_text().count("\n") > lines_before, timeout=60)
        until("spans at the Zipkin URL given at start", lambda: ui["started"].batches > 0, timeout=90, interval=0.5)
    finally:
        stop_and_reset(ui)
    assert not posted_log.exists() and ui["posted"].batches == 0
    serving(ui)


def test_the_page_may_set_every_parameter_it_shows(ui):
    shown = page(ui["url"])["extra_options"]
    assert "trace_sample" in shown and "step_users" in shown and "step_log" not in shown and "zipkin_url" not in shown
    form = {**start_form(ui), **{k: str(v["default_value"]) for k, v in shown.items()},
            "step_users": "1", "step_seconds": "600", "trace_sample": "0"}
    r = requests.post(ui["url"] + "swarm", data=form, headers=same_origin(ui), timeout=10)
    try:
        assert r.status_code == 200 and r.json()["success"], r.text
        assert not idle(ui)
    finally:
        stop_and_reset(ui)


OTHER = "http://evil.example"
CROSS_ORIGIN = {      # the headers of a post a web page of another origin makes the browser send
    "a cross-site form": {"Origin": OTHER, "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"},
    "a fetch from another origin": {"Origin": OTHER, "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "cors"},
    "another port of this host (same-site)": {"Origin": "http://127.0.0.1:1", "Sec-Fetch-Site": "same-site"},
    "another origin, no fetch metadata (plain http)": {"Origin": OTHER},
    "another port, no fetch metadata": {"Origin": "http://127.0.0.1:1"},
    "an opaque origin (sandboxed, data: URL)": {"Origin": "null"},
    "a foreign Referer, no Origin": {"Referer": OTHER + "/page.html"},
    "a Referer of another port, no Origin": {"Referer": "http://127.0.0.1:1/"},
    "a browser request naming no origin": {"Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"},
    "a Sec-Fetch-Site of another site beside this Origin": {"Origin": "{own}", "Sec-Fetch-Site": "cross-site"},
}


def cross(ui, label: str) -> dict:
    return {k: v.replace("{own}", ui["origin"]) for k, v in CROSS_ORIGIN[label].items()}


@pytest.mark.parametrize("label", sorted(CROSS_ORIGIN))
def test_a_cross_origin_start_is_refused_and_starts_nothing(ui, label):
    r = requests.post(ui["url"] + "swarm", data={**start_form(ui), "step_log": str(ui["tmp"] / "xo.jsonl")},
                      headers=cross(ui, label), timeout=10)
    assert r.status_code == 403, r.text
    assert idle(ui) and not (ui["tmp"] / "xo.jsonl").exists()
    serving(ui)


@pytest.mark.parametrize("label", sorted(CROSS_ORIGIN))
def test_a_cross_origin_user_edit_is_refused_and_the_class_stays(ui, label):
    weight = page(ui["url"])["users"]["Seg1StaticPage"]["weight"]
    r = requests.post(ui["url"] + "user", json={"user_class_name": "Seg1StaticPage", "weight": weight + 6},
                      headers=cross(ui, label), timeout=10)
    assert r.status_code == 403, r.text
    assert page(ui["url"])["users"]["Seg1StaticPage"]["weight"] == weight


def test_a_user_edit_sets_only_what_the_editor_shows(ui):
    r = requests.post(ui["url"] + "user", json={"user_class_name": "Seg1StaticPage", "path": "/elsewhere"},
                      headers=same_origin(ui), timeout=10)
    assert r.status_code == 400 and "path" in r.json()["message"], r.text
    weight = page(ui["url"])["users"]["Seg1StaticPage"]["weight"]
    r = requests.post(ui["url"] + "user", json={"user_class_name": "Seg1StaticPage", "weight": weight},
                      headers=same_origin(ui), timeout=10)
    assert r.status_code == 201, r.text


def test_a_running_test_is_neither_stopped_nor_reset_from_another_origin(ui):
    r = requests.post(ui["url"] + "swarm", data=start_form(ui), timeout=10)    # a program: no browser headers
    assert r.status_code == 200 and r.json()["success"], r.text
    try:
        until("requests to be counted", lambda: counted(ui) >= 10, timeout=90, interval=0.5)
        for label in CROSS_ORIGIN:
            before = counted(ui)
            for route in ("stop", "stats/reset"):
                r = requests.post(ui["url"] + route, headers=cross(ui, label), timeout=10)
                assert r.status_code == 403, (label, route, r.text)
            assert not idle(ui), f"{label}: the run stopped"
            assert counted(ui) >= before, f"{label}: the counts were reset"
    finally:
        stop_and_reset(ui)
    serving(ui)


def test_a_refused_json_file_is_not_written_when_locust_quits_and_the_started_one_is(tmp_path):
    """--json-file NAME is written as Locust quits (NAME.json): a posted one would be written instead."""
    port = procs.free_port()
    master = procs.start("locust-ui", _master_argv(port, None, ["-H", "http://127.0.0.1:1", "--json-file",
                                                                str(tmp_path / "started")]),
                         tmp_path / "locust.log", port=port, cwd=locust_ui.ROOT)
    try:
        procs.wait_healthy(master, f"http://127.0.0.1:{port}/", 120)
        r = requests.post(f"http://127.0.0.1:{port}/swarm", timeout=10,
                          data={"user_count": "1", "spawn_rate": "1", "json_file": str(tmp_path / "posted")})
        assert r.status_code == 400, r.text
    finally:
        procs.stop(master, timeout=60)
    assert (tmp_path / "started.json").exists(), (tmp_path / "locust.log").read_text()[-2000:]
    assert not (tmp_path / "posted.json").exists()


PASSWORD = "posts-guard-1"


@pytest.fixture
def haproxy_entry(ui):
    """HAProxy rendered from the testbed's template with UI_PASSWORD set, its locust_ui entry in
    front of the master: (its URL, the credentials)."""
    from stacks import make_stack_config
    from testbed.haproxy import config as haproxy
    cfg = make_stack_config("locust-ui-posts", {"UI_PASSWORD": PASSWORD})
    cfg.state_dir.mkdir(parents=True, exist_ok=True)
    (cfg.state_dir / "haproxy.state").write_text("1\n")
    path = cfg.state_dir / "haproxy.cfg"
    path.write_text(haproxy.render(cfg, {}, locust_server=f"    server locust 127.0.0.1:{ui['port']}"))
    haproxy.check(path)
    proc = procs.start("haproxy", ["haproxy", "-f", str(path)], cfg.state_dir / "haproxy.log", port=cfg.locust_port)
    url = f"http://127.0.0.1:{cfg.locust_port}/"
    try:
        until("HAProxy's locust_ui entry", lambda: not proc.alive() or _answers(url), timeout=30, interval=0.2)
        assert proc.alive(), (cfg.state_dir / "haproxy.log").read_text()[-2000:]
        yield url, (cfg.knobs.get("UI_USER") or "testbed", PASSWORD)
    finally:
        procs.stop(proc)


def _answers(url: str) -> bool:
    try:
        return requests.get(url, timeout=5).status_code == 401
    except requests.ConnectionError:
        return False


def test_through_haproxys_locust_entry_with_the_ui_password(ui, haproxy_entry):
    url, auth = haproxy_entry
    own = {"Origin": url.rstrip("/"), "Sec-Fetch-Site": "same-origin"}
    assert requests.post(url + "stats/reset", headers=own, timeout=10).status_code == 401     # the password first
    assert requests.post(url + "stats/reset", headers=own, auth=auth, timeout=10).status_code == 200
    port = url.rstrip("/").rsplit(":", 1)[1]
    named = {"Host": f"localhost:{port}", "Origin": f"http://localhost:{port}"}     # the UI reached as localhost
    assert requests.post(url + "stats/reset", headers=named, auth=auth, timeout=10).status_code == 200
    for origin in (OTHER, ui["origin"]):          # another site; the master's own address is another origin here
        r = requests.post(url + "swarm", data=start_form(ui), headers={"Origin": origin}, auth=auth, timeout=10)
        assert r.status_code == 403, (origin, r.text)
    r = requests.post(url + "swarm", data={**start_form(ui), "step_log": hidden(ui, "step_log")},
                      headers=own, auth=auth, timeout=10)
    assert r.status_code == 400 and "step_log" in r.json()["message"], r.text
    assert idle(ui) and not (ui["tmp"] / WRITES["step_log"]).exists()
    r = requests.post(url + "swarm", data=start_form(ui), headers=own, auth=auth, timeout=10)
    try:
        assert r.status_code == 200 and r.json()["success"], r.text
        assert not idle(ui)
        spawned(ui)
        assert requests.post(url + "stop", headers=own, auth=auth, timeout=10).status_code == 200
        until("the run to stop", lambda: idle(ui), timeout=90, interval=0.5)
    finally:
        stop_and_reset(ui)
    serving(ui)
