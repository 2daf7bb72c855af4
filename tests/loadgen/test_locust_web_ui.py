"""The Locust web UI that `./testbed up` starts (testbed.locust_ui: a master with the class
picker and one worker), asked over HTTP as the browser asks it: the class picker lists each
user class once, in path order, with a description; only /seg/5 through the clone tier to
Axis2 is ticked; the custom parameters read in groups; and START runs what is ticked with the
parameters given. No stack is needed (the master's own UI is asked, not HAProxy's locust_ui
entry in front of it): the users' requests go to a closed port and are counted
as failures under their names, which is what the checks read."""
from __future__ import annotations

import json
import re
import time

import pytest
import requests

from polling import until
from stacks import RUN_DIR
from testbed import procs
from testbed.stacks import locust_ui
from testbed.config import StackConfig

pytestmark = pytest.mark.timeout(300)

CLASSES = ["Seg1StaticPage", "Seg2Jsp", "Seg3AccessBean", "Seg4SessionBean",
           "Seg5ViaClonesAxis", "Seg5ViaClonesGsoap", "Seg5ViaClonesOwn"]
PARAMETERS = ["soap_op", "soap_payload_items",
              "closed_loop_think_time", "open_loop_rate", "open_loop_max_outstanding", "trace_sample",
              "step_users", "step_seconds", "step_warmup_seconds", "step_prime_seconds", "step_hold_seconds",
              "step_target_ci", "step_min_seconds", "step_plateau_tolerance", "step_plateau_steps"]


@pytest.fixture(scope="module")
def ui():
    # no HAProxy here: the master's own web UI (locust_web_port = replica_port_base + 990)
    cfg = StackConfig(web_port=procs.free_port(), locust_port=procs.free_port(),
                      locust_master_port=procs.free_port(), locust_workers=1,
                      replica_port_base=procs.free_port() - 990, state_dir=RUN_DIR / "locust-web-ui")
    log_dir = RUN_DIR / "locust-web-ui"
    log_dir.mkdir(parents=True, exist_ok=True)
    started = locust_ui.start(cfg, log_dir)
    try:
        locust_ui.wait(started, cfg, timeout=120)
        url = locust_ui.direct_url(cfg)
        until("the worker to connect",
              lambda: requests.get(url + "stats/requests", timeout=10).json().get("worker_count") == 1,
              timeout=90, interval=0.5)
        yield url, f"http://127.0.0.1:{cfg.web_port}"
    finally:
        for p in locust_ui.all_procs(started):
            procs.stop(p)


def template_args(url: str) -> dict:
    """What the page's script reads: window.templateArgs, JSON in the HTML."""
    page = requests.get(url, timeout=10).text
    m = re.search(r"window\.templateArgs = (\{.*\})\s*$", page, re.M)
    assert m, "no window.templateArgs in the page"
    return json.loads(m.group(1))


# Locust's web UI turns the page's snake_case keys into camelCase and turns them back when it
# posts the form (webui: `e.replace(/_([a-z0-9])/g, ...)` and its inverse): a name that does
# not survive both is posted under another name and silently ignored (e.g. "seg5_op").
def ui_camel(key: str) -> str:
    return re.sub(r"_([a-z0-9])", lambda m: m.group(1).upper(), key)


def ui_snake(key: str) -> str:
    return key if key[:1].isupper() else re.sub(r"([a-z0-9])([A-Z0-9])", r"\1_\2", key).lower()


def test_the_class_picker_lists_each_class_once_in_path_order_with_a_description(ui):
    users = template_args(ui[0])["users"]
    assert list(users) == CLASSES
    for name, k in zip(CLASSES, [1, 2, 3, 4, 5, 5]):
        assert users[name]["host"].startswith(f"/seg/{k} · "), users[name]     # shown beside the name
    assert "Axis2" in users["Seg5ViaClonesAxis"]["host"] and "gSOAP" in users["Seg5ViaClonesGsoap"]["host"]


def test_only_seg5_through_the_clone_tier_to_axis2_is_ticked(ui):
    assert template_args(ui[0])["available_user_classes"] == ["Seg5ViaClonesAxis"]


def test_the_custom_parameters_read_in_groups_in_declaration_order(ui):
    assert list(template_args(ui[0])["extra_options"]) == PARAMETERS


def test_every_custom_parameter_comes_back_from_the_form_under_its_own_name(ui):
    assert ui_snake(ui_camel("seg5_op")) != "seg5_op"           # the check can fail
    for key in template_args(ui[0])["extra_options"]:
        assert ui_snake(ui_camel(key)) == key


def start(ui_url: str, form: dict) -> None:
    r = requests.post(ui_url + "swarm", data=form, timeout=10)
    assert r.status_code == 200 and r.json().get("success"), r.text


def request_names(ui_url: str) -> set[str]:
    stats = requests.get(ui_url + "stats/requests", timeout=10).json()["stats"]
    return {s["name"] for s in stats if s["name"] != "Aggregated" and s["num_requests"] > 0}


def stopped(ui_url: str) -> bool:
    """The master and every worker stopped (a worker is "ready" again then): a worker sends its
    last counts before it says so."""
    r = requests.get(ui_url + "stats/requests", timeout=10).json()
    return r["state"] == "stopped" and all(w["state"] in ("stopped", "ready") for w in r.get("workers", []))


def stop(ui_url: str) -> None:
    requests.post(ui_url + "stop", timeout=10)
    until("the run to stop", lambda: stopped(ui_url), timeout=90, interval=0.5)
    requests.post(ui_url + "stats/reset", timeout=10)


def test_start_as_the_page_opens_runs_seg5_to_axis2_and_nothing_else(ui):
    ui_url, target = ui
    ticked = template_args(ui_url)["available_user_classes"]
    start(ui_url, {"user_classes": ticked, "user_count": 1, "spawn_rate": 1, "host": target,
                   "shape_class": "Default", ui_snake(ui_camel("closed_loop_think_time")): "0.2"})
    try:
        until("a request to be counted", lambda: "/seg/5 axis ping n=0" in request_names(ui_url),
              timeout=90, interval=0.5)
        names = request_names(ui_url)
    finally:
        stop(ui_url)
    assert names == {"/seg/5 axis ping n=0"}


def test_start_with_another_class_and_parameters_runs_them_on_the_worker(ui):
    ui_url, target = ui
    form = {"user_classes": ["Seg5ViaClonesGsoap"], "user_count": 1, "spawn_rate": 1, "host": target,
            "shape_class": "Default"}
    form.update({ui_snake(ui_camel(k)): v for k, v in
                 {"soap_op": "sendInts", "soap_payload_items": "7", "closed_loop_think_time": "0.2"}.items()})
    start(ui_url, form)
    try:
        until("a request to be counted", lambda: "/seg/5 gsoap sendInts n=7" in request_names(ui_url),
              timeout=90, interval=0.5)
        names = request_names(ui_url)
    finally:
        stop(ui_url)
    assert names == {"/seg/5 gsoap sendInts n=7"}
