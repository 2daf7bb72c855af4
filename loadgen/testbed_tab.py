"""The "Testbed" tab of the Locust web UI: every replica of every tier while the load runs --
its state in HAProxy, CPU (of a core, of its quota), requests/s and response time as HAProxy
sees them, sessions, queue, the client lock's waiters -- the host's and the load generator's
CPU, whether the load generator keeps up (its event loop's lateness: analysis/generator.py), and the bottleneck hint (cli/testbed/live/view.py gathers them; analysis/measure/bottleneck.py judges).

Built on Locust's own extension points for its web UI (no fork of the UI): the tab and its
table are `extended_tabs` / `extended_tables` of the page's template arguments, and its rows
ride on the `/stats/requests` answer the page polls every 2 s, as `extended_stats` (Locust's
examples/extend_web_ui.py). The same data as JSON: GET /testbed/tiers.

Where the stack is read from (the master's environment; ./testbed up and docker-compose.yml set it):
    TESTBED_STATE_DIR   the local stack's state directory (./testbed up)
    TESTBED_STATS_URL   HAProxy's stats page, e.g. http://haproxy:8404/ (compose), with the
                        containers' cgroups mounted read-only (CGROUP_HOST_ROOT)
    UI_USER, UI_PASSWORD  HAProxy's stats page credentials, when it asks for them
Neither set (a Locust started by hand): no tab. Workers and --headless runs have no web UI.
"""
from __future__ import annotations

import json
import logging
import os

from locust import events

from analysis import generator
from analysis.load.settings import Settings
import latency_record     # the locustfile's own module (Locust puts loadgen/ on the path)

TAB = "testbed"
# not "name": Locust's table sorts its rows by a "name" field; without one they keep this order
COLUMNS = [("replica", "Replica"), ("state", "HAProxy"), ("cpu", "CPU (of a core)"), ("quota", "CPU of its quota"),
           ("rate", "Requests/s (HAProxy)"), ("rtime", "Avg response (HAProxy, last 1024)"),
           ("sessions", "Sessions"), ("queue", "Queue"), ("note", "Note")]


def _source():
    from testbed.live.view import ContainerSource, LocalSource
    if os.environ.get("TESTBED_STATE_DIR"):
        return LocalSource(os.environ["TESTBED_STATE_DIR"])
    if os.environ.get("TESTBED_STATS_URL"):
        from testbed.config import StackConfig
        knobs = {k: os.environ[k] for k in ("UI_USER", "UI_PASSWORD") if os.environ.get(k)}
        return ContainerSource(os.environ["TESTBED_STATS_URL"], StackConfig(knobs=knobs).ui_headers())
    return None


def _locust_figures(environment):
    """(users, requests sent so far, CPU % of the load generator: master + workers) of this Locust."""
    runner = environment.runner
    if runner is None:
        return 0, 0, None
    cpu = float(getattr(runner, "current_cpu_usage", 0.0) or 0.0)
    cpu += sum(float(getattr(w, "cpu_usage", 0) or 0) for w in getattr(runner, "clients", {}).values())
    return runner.user_count, int(runner.stats.total.num_requests), cpu


def _pct(value) -> str:
    return "" if value is None else f"{value:.0f} %"


def table_rows(view: dict) -> list[dict]:
    """The tab's rows, as text: the hint first, then every replica, then host and load generator."""
    rows = [{"replica": "bottleneck", "state": view["hint"]["kind"], "note": view["hint"]["text"]}]
    if view.get("error"):
        rows.append({"replica": "(stack)", "state": "?", "note": view["error"]})
    for r in view["rows"]:
        waits = r.get("waits")
        note = ""
        if waits and waits.get("waiting"):
            note = (f"{waits['waiting']} threads BLOCKED on SingletonSoapClient" if waits["mode"] == "singleton"
                    else f"{waits['waiting']} calls waiting for a pooled client")
        name = r["replica"] if r["tier"] == "monitoring" else f"{r['tier']}-{r['replica']}"
        rows.append({"replica": name, "state": r["haproxy"], "cpu": _pct(r["cpu"]),
                     "quota": f"{r['cpu'] / r['quota']:.0f} % of {r['quota']:g} core"
                              if r["quota"] and r["cpu"] is not None else "",
                     "rate": "" if r["req_s"] is None else f"{r['req_s']:.1f}",
                     "rtime": "" if r["rtime_ms"] is None else f"{r['rtime_ms']} ms",
                     "sessions": "" if r["sessions"] is None else str(r["sessions"]),
                     "queue": "" if r["queue"] is None else str(r["queue"]), "note": note})
    host, lg = view["host"], view["loadgen"]
    rows.append({"replica": "host", "cpu": _pct(host["cpu"]),
                 "quota": "" if host["cpu"] is None else f"{host['cpu'] / host['cores']:.0f} % of {host['cores']} cores",
                 "note": "the whole machine: 100 % = one core"})
    kept = generator.live(lg.get("loop"), lg.get("p50_ms"), Settings())
    rows.append({"replica": "loadgen", "cpu": _pct(lg["cpu"]), "rate": "" if lg["rps"] is None else f"{lg['rps']:.1f}",
                 "state": "" if not kept else kept.split(":")[0],
                 "note": f"Locust, master + workers: {lg['users']} users" + (f"; {kept}" if kept else "")})
    return rows


@events.init.add_listener
def _testbed_tab(environment, web_ui=None, **_kwargs):
    if web_ui is None:                       # workers, --headless
        return
    try:
        source = _source()
    except Exception as e:                   # never stop Locust for its tab
        logging.warning("loadgen: no Testbed tab: %s", e)
        return
    if source is None:
        return
    from flask import jsonify, request

    from testbed.live.view import LiveView
    view = LiveView(source, lambda: _locust_figures(environment))

    def current() -> dict:
        try:
            out = {k: v for k, v in view.sample().items() if not k.startswith("_")}
            out["loadgen"]["loop"] = latency_record.loop_now(environment)      # did Locust keep up
            total = environment.runner.stats.total if environment.runner else None
            out["loadgen"]["p50_ms"] = total.get_current_response_time_percentile(0.5) if total else None
            return out
        except Exception as e:               # a reading that failed shows as such, never a 500
            logging.exception("loadgen: Testbed tab")
            return {"rows": [], "host": {"cpu": None, "cores": 1}, "loadgen": {"cpu": None, "users": 0, "rps": None},
                    "hint": {"kind": "unknown", "text": "no reading"}, "error": f"{type(e).__name__}: {e}"}

    @web_ui.app.route("/testbed/tiers")
    @web_ui.auth_required_if_enabled
    def testbed_tiers():
        return jsonify(current())

    @web_ui.app.after_request
    def testbed_rows(response):
        if request.path == "/stats/requests" and response.status_code == 200 and response.is_json:
            body = response.get_json()
            body["extended_stats"] = [{"key": TAB, "data": table_rows(current())}]
            response.set_data(json.dumps(body))
        return response

    web_ui.template_args["extended_tabs"] = [{"title": "Testbed", "key": TAB}]
    web_ui.template_args["extended_tables"] = [{"key": TAB, "structure": [{"key": k, "title": t} for k, t in COLUMNS]}]
