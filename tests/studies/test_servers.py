"""The servers study's plan and analysis (cli/testbed/studies/servers.py, analysis/studies/servers*.py)
without running anything: parameters are checked with messages naming the fix, the sweeps give the
points the issue asks for, and the findings' verdicts follow their stated rules on known figures."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import method_anchors
from analysis.judge.findings import DOES_NOT_HOLD, HOLDS, NOT_MEASURED
from analysis.judge.method import SERVERS
from analysis.render.study_report import render
from analysis.studies import servers as analysis
from analysis.studies import servers_findings as sf
from testbed import ROOT
from testbed.studies import runner as study
from testbed.studies import servers

EXPERIMENT = ROOT / "loadgen" / "experiments" / "servers.toml"


def _load(tmp_path: Path, params: str, quick: bool = False) -> study.Study:
    p = tmp_path / "s.toml"
    p.write_text(f'name = "s"\nkind = "servers"\n[params]\n{params}\n')
    return study.load(p, quick=quick)


def test_the_shipped_experiment_sweeps_clients_lengths_and_pools_with_and_without_work():
    pts = study.load(EXPERIMENT).points()
    by = {(p.params["work"], p.params["model"], p.params["clients"], p.params["length"], p.params["pool"]): p
          for p in pts}
    for n in (1, 10, 100, 1000):
        for model, pool in (("thread", None), ("poller", None), ("pooled", 1000)):
            assert ("none", model, n, 1024, pool) in by
    for length in (512, 1024, 2048, 4096):
        assert ("none", "poller", 100, length, None) in by
    for k in (1, 2, 5, 10, 20, 30, 50, 100):
        assert ("none", "pooled", 100, 1024, k) in by
        assert ("wait:1000", "pooled", 100, 1024, k) in by
    assert ("wait:1000", "poller", 1, 1024, None) in by
    assert not any(w != "none" and n == 1000 for w, _, n, _, _ in by)       # with_work leaves 1 000 out
    assert by[("none", "thread", 100, 1024, None)].params["messages"] == 100   # the published 100 × 100
    assert by[("none", "thread", 1, 1024, None)].params["messages"] == 10000   # min_total_messages


def test_quick_keeps_every_sweep_but_fewer_points():
    full, quick = study.load(EXPERIMENT).points(), study.load(EXPERIMENT, quick=True).points()
    assert len(quick) < len(full) / 2
    none = [p.params for p in quick if p.params["work"] == "none"]
    assert len({p["length"] for p in none if p["clients"] == 100 and p["model"] == "thread"}) >= 2
    assert len({p["pool"] for p in none if p["model"] == "pooled"}) >= 2      # a small pool and the 1 000
    assert {p["clients"] for p in none} == {1, 100}


def test_messages_per_connection_are_raised_to_the_minimum_total():
    p = {"messages": 100, "min_total_messages": 10000}
    assert servers.messages_for(p, 1) == 10000
    assert servers.messages_for(p, 30) == 334
    assert servers.messages_for(p, 1000) == 100


@pytest.mark.parametrize("params, says", [
    ('models = ["thread", "forked"]', "models must be a non-empty list of thread, poller, pooled"),
    ('work = ["sleep:5"]', "work must be a non-empty list of none, cpu:<µs>, wait:<µs>"),
    ("clients = [0, 10]", "clients must be a non-empty list of whole numbers from 1 to 10000"),
    ("with_work = { clients = [0] }", "with_work.clients must be"),
    ("with_work = { repeat = 2 }", "with_work may only hold clients, lengths, pools"),
    ("deadline_s = 1", "deadline_s must be a whole number from 5 to 3600"),
    ('jvm_options = ["Xmx1g"]', "jvm_options must be a list of JVM options"),
])
def test_bad_parameters_are_refused_with_the_key_and_the_fix(tmp_path, params, says):
    with pytest.raises(study.StudyError, match=re.escape(says)):
        _load(tmp_path, params)


def test_a_hard_limit_below_the_largest_point_is_a_clear_error():
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with pytest.raises(study.StudyError, match="ulimit -Hn"):
        servers._raise_limit(resource.RLIMIT_NOFILE, hard + 1 if hard != resource.RLIM_INFINITY else 2**62,
                             "open files (ulimit -n)", "raise it (ulimit -Hn)")
    assert resource.getrlimit(resource.RLIMIT_NOFILE) == (soft, hard)


# --- findings on known figures ------------------------------------------------------------------

def _row(model, completion, pool=None, spread=0.0, n=3, busy_peak=None, busy_mean=None, clients=100, length=1024):
    lo, hi = completion * (1 - spread / 2), completion * (1 + spread / 2)     # 3 runs: lo, median, hi
    return {"model": model, "pool": pool, "clients": clients, "length": length, "messages": 100,
            "completion": {"n": n, "median": completion, "min": lo, "max": hi, "spread": (hi - lo) / completion,
                           "p25": (lo + completion) / 2, "p75": (completion + hi) / 2},
            "busy_peak": busy_peak, "busy_mean": busy_mean}


def test_tolerance_is_the_median_interquartile_spread_with_a_ten_percent_floor():
    assert sf.tolerance([_row("thread", 1.0, spread=0.02)])[0] == 0.10
    # three runs each: (p75 - p25) / median is half the range
    assert sf.tolerance([_row("thread", 1.0, spread=s) for s in (0.2, 0.6, 1.0)])[0] == pytest.approx(0.3)
    x, how = sf.tolerance([_row("thread", 1.0, n=1)])
    assert x == 0.10 and "no point has two runs" in how


def test_pool_matches_from_the_smallest_pool_after_which_every_pool_matches():
    thread = _row("thread", 1.0)
    pools = [_row("pooled", t, pool=k, busy_peak=k, busy_mean=k * 0.8)
             for k, t in ((1, 4.0), (5, 1.5), (10, 1.05), (20, 1.2), (30, 1.08), (100, 0.95))]
    f = sf.pool_matches("none", thread, pools, 100)
    assert f.verdict == HOLDS and "matches from pool 30" in f.measured and "30 workers busy" in f.measured
    late = [_row("pooled", t, pool=k) for k, t in ((10, 2.0), (30, 1.5), (50, 1.05), (100, 1.0))]
    f = sf.pool_matches("none", thread, late, 100)
    assert f.verdict == DOES_NOT_HOLD and "matches from pool 50" in f.measured
    never = [_row("pooled", 2.0, pool=k) for k in (10, 100)]
    assert sf.pool_matches("none", thread, never, 100).verdict == DOES_NOT_HOLD
    assert sf.pool_matches("none", None, never, 100).verdict == NOT_MEASURED


def test_poller_must_be_best_at_one_client_and_behind_at_every_larger_count():
    def sweep(p1, p100):
        return {1: {"thread": _row("thread", 1.0), "poller": _row("poller", p1)},
                100: {"thread": _row("thread", 1.0), "pooled": _row("pooled", 0.9), "poller": _row("poller", p100)}}
    assert sf.poller_best_at_one("none", sweep(0.8, 2.0)).verdict == HOLDS
    assert sf.poller_best_at_one("none", sweep(1.05, 2.0)).verdict == HOLDS      # within X of the best
    assert sf.poller_best_at_one("none", sweep(1.5, 2.0)).verdict == DOES_NOT_HOLD
    f = sf.poller_best_at_one("none", sweep(0.8, 0.95))                          # not behind the pooled 0.9
    assert f.verdict == DOES_NOT_HOLD and "not behind by more than X" in f.measured
    assert sf.poller_best_at_one("none", {1: sweep(0.8, 2)[1]}).verdict == NOT_MEASURED


def test_length_barely_matters_when_the_longest_is_within_a_quarter_of_the_shortest():
    flat = {n: {"thread": _row("thread", 1.0 + n / 40960)} for n in (512, 1024, 4096)}
    assert sf.length_barely_matters("none", flat).verdict == HOLDS
    steep = {512: {"thread": _row("thread", 1.0)}, 4096: {"thread": _row("thread", 1.4)}}
    assert sf.length_barely_matters("none", steep).verdict == DOES_NOT_HOLD
    noisy_middle = {512: {"thread": _row("thread", 1.0)}, 2048: {"thread": _row("thread", 1.6)},
                    4096: {"thread": _row("thread", 1.1)}}
    f = sf.length_barely_matters("none", noisy_middle)
    assert f.verdict == HOLDS and "between: 1.600 s" in f.measured
    assert sf.length_barely_matters("none", {512: steep[512]}).verdict == NOT_MEASURED


def test_summary_builds_the_sweeps_and_findings_from_samples_alone():
    pts = study.load(EXPERIMENT, quick=True).points()
    experiment = {"params": study.load(EXPERIMENT, quick=True).params,
                  "points": [{"id": p.id, "label": p.label, "params": p.params} for p in pts]}
    speed = {"thread": 1.0, "poller": 1.6, "pooled": 1.05}
    samples = []
    for p in pts:
        for rep in range(2):
            t = speed[p.params["model"]] * (1.02 if rep else 1.0)
            samples.append({"point": p.id, "status": "ok", "repeat": rep, "data": {
                "completion_s": t, "messages_per_s": 10000 / t, "latency_p99_us": 900.0,
                "server": {"threads_peak": 5, "threads_mean": 4.5, "busy_peak": 3, "busy_mean": 1.0,
                           "os_threads_peak": 20, "rss_peak_kb": 65536, "rss_mean_kb": 60000}}})
    samples.append({"point": pts[0].id, "status": "timeout", "repeat": 2, "data": None})
    s = analysis.summarize(experiment, samples)
    keys = [f["key"] for f in s["findings"]]
    assert keys[:4] == ["pool-matches-none", "poller-none", "length-none", "default-none"]
    assert len(keys) == 8 and keys[4].endswith("wait:1000")
    method_anchors.check(s["findings"], SERVERS)             # each names its section of docs/method.md
    verdict = {f["key"]: f["verdict"] for f in s["findings"]}
    assert verdict["pool-matches-none"] == HOLDS and verdict["length-none"] == HOLDS
    assert verdict["default-none"] == DOES_NOT_HOLD                 # pooled 1.05 is not below thread 1.0
    row = next(r for r in s["rows"] if r["id"] == pts[0].id)
    assert row["completion"]["n"] == 2 and row["rss_peak_mib"] == 64
    experiment = {"name": "servers", "kind": "servers"}
    html = render({"experiment": experiment, "measurements": {"ok": 1}, "lost": [], **s}, analysis, {})
    assert 'id="pools-none"' in html and 'id="clients-wait1000"' in html and "poller + worker pool" in html
    # each claim links to its section of the method, embedded at the page's end
    assert f'href="#{SERVERS}"' in html and html.index(f'id="{SERVERS}"') > html.index('id="settings"')
