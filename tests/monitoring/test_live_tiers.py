"""The tiers while the load runs, on a private local stack started with the Locust UI and with
monitoring (./testbed up --monitoring): the Testbed tab's data route (GET /testbed/tiers, and
the rows the tab gets with /stats/requests), Prometheus' targets following `scale`, and the
runner's CPU per tier (cpu.csv's sampler) agreeing with Prometheus' on one run."""
from __future__ import annotations

import json
import re
import time
import urllib.parse
import urllib.request

import pytest

from testbed.stacks import locust_ui
from testbed.observe import monitoring
from polling import until
from stacks import RUN_DIR, make_stack_config

pytestmark = [pytest.mark.stack, pytest.mark.own_stack]   # a stack with Prometheus of its own
USERS = 6


def get_json(url: str, timeout: float = 15) -> dict:
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.load(r)


@pytest.fixture(scope="module")
def live():
    from testbed.stacks.local import LocalStack
    st = LocalStack(make_stack_config("live-tiers", {"LOCUST_WORKERS": "1", "MONITORING_SCRAPE_INTERVAL": "2s"}),
                    log=lambda *a: None)
    if st.running():
        st.down()
    try:
        st.up({"front": 1, "clone": 1, "axis": 1, "gsoap": 1}, {"CLIENT_MODE": "singleton"},
              locust=True, monitoring=True)
    except Exception as e:
        st.down()
        pytest.fail(f"stack did not start: {e}")
    st.ui = locust_ui.direct_url(st.cfg)
    st.prometheus = f"http://127.0.0.1:{monitoring.prometheus_port(st.cfg)}"
    yield st
    st.down()


@pytest.fixture
def load(live):
    """USERS closed-loop users on /seg/5 -> clone -> Axis2, from the stack's own Locust UI."""
    form = urllib.parse.urlencode({"user_classes": "Seg5ViaClonesAxis", "shape_class": "Default",
                                   "user_count": USERS, "spawn_rate": USERS, "host": live.web_url()}).encode()
    with urllib.request.urlopen(urllib.request.Request(live.ui + "swarm", data=form), timeout=15) as r:
        assert json.load(r)["success"]
    yield live
    urllib.request.urlopen(urllib.request.Request(live.ui + "stop", data=b""), timeout=15).read()   # POST


def rows(live) -> dict[str, dict]:
    return {f"{r['tier']}-{r['replica']}": r for r in get_json(live.ui + "testbed/tiers")["rows"]}


def test_the_tab_is_offered_on_locusts_page_and_lists_every_replica_up(live):
    with urllib.request.urlopen(live.ui, timeout=15) as r:
        page = r.read().decode()
    assert re.search(r'"extended_tabs":\s*\[\{"title":\s*"Testbed",\s*"key":\s*"testbed"\}\]', page), \
        "Locust's page does not offer the Testbed tab"
    assert re.search(r'"extended_tables":\s*\[\{"key":\s*"testbed"', page)
    view = get_json(live.ui + "testbed/tiers")
    got = {f"{r['tier']}-{r['replica']}": r["haproxy"] for r in view["rows"]}
    assert got == {"axis-1": "UP", "clone-1": "UP", "front-1": "UP", "gsoap-1": "UP", "haproxy-1": "balancer",
                   "monitoring-prometheus": "", "monitoring-cpu-exporter": ""}   # what watching costs, too
    assert view["hint"]["kind"] == "idle" and view["host"]["cores"] >= 1


def test_under_load_rows_show_rate_cpu_and_the_hint_judges_them(load):
    def busy():
        view = get_json(load.ui + "testbed/tiers")
        clone = next((r for r in view["rows"] if r["tier"] == "clone"), {})
        # every figure of a reading (a /status slower than 1 s on a busy host leaves its lock out;
        # Locust's current rate stays 0 until its workers' first reports are in)
        return view if (clone.get("req_s") or 0) > 0 and clone.get("cpu") is not None and clone.get("waits") \
            and view["loadgen"]["users"] == USERS and (view["loadgen"].get("rps") or 0) > 0 \
            and view["loadgen"].get("loop") and view["hint"]["kind"] in ("software", "cpu") else None
    view = until("clone-1 serving, with CPU, its lock, all users, Locust's rate and a verdict", busy,
                 timeout=90, interval=1.0)
    clone = next(r for r in view["rows"] if r["tier"] == "clone")
    assert clone["sessions"] is not None and clone["queue"] is not None and clone["waits"]["mode"] == "singleton"
    assert "utilisation" in view["hint"] and "clone" in view["hint"]["utilisation"]
    # the rows the page's table gets, with Locust's own statistics
    stats = get_json(load.ui + "stats/requests")
    table = {r["replica"]: r for r in next(e["data"] for e in stats["extended_stats"] if e["key"] == "testbed")}
    assert table["bottleneck"]["note"] and {"clone-1", "front-1", "axis-1", "host", "loadgen"} <= set(table)
    # whether Locust keeps up: its workers' event loop, as the analysis judges a step (analysis/generator.py)
    loop = view["loadgen"]["loop"]
    assert loop["p50_ms"] >= 0 and loop["max_ms"] >= loop["p50_ms"] and loop["process"]
    assert table["loadgen"]["state"] in ("kept up", "BEHIND") and "event loop" in table["loadgen"]["note"]


def test_a_scaled_replica_appears_in_the_tab_and_in_prometheus(load):
    before = time.monotonic()
    load.scale("clone", 2)
    try:
        scaled = time.monotonic()
        view = until("clone-2 in the tab, UP and served", lambda: (lambda r: r if r.get("haproxy") == "UP"
                     and (r.get("req_s") or 0) > 0 else None)(rows(load).get("clone-2", {})), timeout=60,
                     interval=1.0)
        assert view["cpu"] is not None

        def targets():
            data = get_json(load.prometheus + "/api/v1/targets")["data"]["activeTargets"]
            up = [t for t in data if t["labels"]["job"] == "clone" and t["health"] == "up"]
            return up if len(up) == 2 else None
        up = until("two clone targets UP in Prometheus", targets, timeout=30, interval=1.0)
        assert {t["labels"]["replica"] for t in up} == {"1", "2"}
        print(f"scale returned after {scaled - before:.1f} s; clone-2 in Prometheus "
              f"{time.monotonic() - scaled:.1f} s later")
    finally:
        load.scale("clone", 1)
    until("clone-2 gone from the tab", lambda: "clone-2" not in rows(load), timeout=30, interval=1.0)


def test_every_target_of_every_tier_is_up_in_prometheus(live):
    def all_up():
        data = get_json(live.prometheus + "/api/v1/targets")["data"]["activeTargets"]
        jobs = {t["labels"]["job"] for t in data if t["health"] == "up"}
        return jobs if jobs >= {"front", "clone", "axis", "gsoap", "haproxy", "cpu", "prometheus"} else None
    until("every job UP", all_up, timeout=30, interval=1.0)


def last_scrape(live) -> float:
    """When Prometheus last scraped the CPU exporter (epoch s; 0 before the first scrape)."""
    got = query(live, "max(timestamp(testbed_cpu_seconds_total))", time.time())
    return max(got.values(), default=0.0)


def scraped_since(live, since: float) -> int:
    """How many scrapes of the CPU exporter Prometheus made since `since` (epoch s)."""
    window = max(1, int(time.time() - since))
    got = query(live, f"max(count_over_time(testbed_cpu_seconds_total[{window}s]))", time.time())
    return int(max(got.values(), default=0))


def query(live, expr: str, at: float) -> dict[str, float]:
    url = f"{live.prometheus}/api/v1/query?" + urllib.parse.urlencode({"query": expr, "time": f"{at:.3f}"})
    return {r["metric"].get("tier", ""): float(r["value"][1]) for r in get_json(url)["data"]["result"]}


def test_the_runners_cpu_per_tier_agrees_with_prometheus_on_one_run(load):
    """cpu.csv's sampler (run/record/sampler.py, what every report's CPU comes from) and Prometheus'
    testbed_cpu_seconds_total over the same 30 s window of one loaded run."""
    from analysis.load import cpu as cpumod
    from testbed.run.record.sampler import CpuSampler
    path = RUN_DIR / "live-tiers-cpu.csv"
    sampler = CpuSampler(path, load.cpu_targets).start()
    try:
        begun = time.time()
        until("two of Prometheus' scrapes of the loaded stack", lambda: scraped_since(load, begun) >= 2,
              timeout=60, interval=0.5)
        start = time.time()
        time.sleep(30)                      # the window both read: 30 s of the load
        end = time.time()
        until("a scrape after the window's end", lambda: last_scrape(load) > end, timeout=60, interval=0.5)
    finally:
        sampler.stop()
    runner = cpumod.window(cpumod.read(path).samples, start + 1, end)   # a sample covers the second before it
    prom = query(load, f"sum by (tier) (increase(testbed_cpu_seconds_total[{end - start:.0f}s])) * 100 / "
                       f"{end - start:.0f}", end)
    rules = query(load, "tier:testbed_cpu_utilisation:ratio", end)
    compared = []
    for tier in ("front", "clone", "axis", "haproxy"):
        mine, theirs = runner.tier_total(tier), prom.get(tier)
        assert mine is not None and theirs is not None, (tier, mine, theirs)
        compared.append(f"{tier}: runner {mine:.1f} %, Prometheus {theirs:.1f} %")
        # the same counters read at other instants (1 s samples vs 2 s scrapes, extrapolated)
        assert abs(mine - theirs) <= max(5.0, 0.15 * max(mine, theirs)), compared
    print("; ".join(compared))
    assert rules.get("clone", 0) > 0 and rules.get("front", 0) > 0
