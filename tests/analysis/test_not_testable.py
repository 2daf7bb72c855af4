"""A clone finding whose run the machine limited reads "not testable on this host" with the
cause and the fix, never "does not hold"; the same figure on a run in the lock's regime does not
hold (analysis/judge/regime.py, analysis/judge/classic.py). Result folders made here with data/make_handmade:
a 2-core host, a singleton baseline at 100/s with CPU to spare, and the 4-clone and client per
request runs short of their bounds — once with the host at 97 %, once at 45 %."""
from __future__ import annotations

import sys

import pytest

from analysis.judge.findings import DOES_NOT_HOLD, HOLDS, NOT_TESTABLE, Finding, text_lines
from analysis.render.report import regenerate
from analysis.summary import build

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent / "data"))
from make_handmade import T0, experiment, plateau, run  # noqa: E402

LOADGEN = {"loadgen/master": 5.0, "loadgen/worker-1": 20.0}


def _folder(path, busy_host: float, busy_baseline: bool = False, others: float = 5.0, only: tuple = ()):
    """runs: baseline 100/s, 2 clones 195/s, 4 clones 269/s, request 135/s, pool 700/s; at
    their plateau the host is at host % (of 200), of which `others` % other programs'.
    only: these run ids alone."""
    plan = [  # id, clones, mode, X, host % at the plateau (of 200)
        ("singleton-c1-a1", 1, "singleton", 100, 194.0 if busy_baseline else 30.0),
        ("singleton-c2-a1", 2, "singleton", 195, 50.0),
        ("singleton-c4-a1", 4, "singleton", 269, busy_host),
        ("request-c1-a1", 1, "request", 135, busy_host),
        ("pool-c1-a1", 1, "pool", 700, 120.0),
    ]
    t, ids = T0, []
    for rid, clones, mode, x, host in [p for p in plan if not only or p[0] in only]:
        rest = host - others - sum(LOADGEN.values())      # the stack's tiers
        cpu = {"front/1": rest * 0.4, **{f"clone/{i}": rest * 0.3 / clones for i in range(1, clones + 1)},
               "axis/1": rest * 0.3, **LOADGEN}
        steps = [dict(s, cpu=cpu, host=host) for s in plateau(x, users=(4, 12, 32, 64))]
        meta = {"kind": "clones", "path": 5, "backend": "axis", "op": "ping",
                "tiers": {"front": 1, "clone": clones, "axis": 1, "gsoap": 0},
                "client_mode": mode, "pool_size": 8 if mode == "pool" else None, "label": rid,
                "demands": {"SERVICE": {"cpu_us": 0, "wait_us": 10000, "locked": False}}}
        t = run(path, f"{rid}-r0", t, meta, steps,
                dump="threaddump-contended.txt" if rid == "singleton-c1-a1" else None)
        ids.append(f"{rid}-r0")
    experiment(path, "clones-regime", "clones", ids)
    dump = path / "runs" / "singleton-c1-a1-r0" / "threaddump-clone-1.txt"
    dump.write_text(dump.read_text().replace("Contended$SingletonClient",
                                             "org.soaptestbed.clones.SingletonSoapClient"))
    return path


def _findings(summary) -> dict[str, Finding]:
    return {f["key"]: Finding.from_json(f) for f in summary["findings"]}


def test_a_host_bound_run_reads_not_testable_with_the_cause_and_the_fix(tmp_path):
    s = build(_folder(tmp_path / "busy", busy_host=194.0))
    runs = {r["id"]: r for r in s["runs"]}
    bound = runs["singleton-c4-a1-r0"]["host_bound"]
    assert bound and bound["cause"].startswith("host CPU 97% of 2 cores at the plateau")
    assert runs["singleton-c2-a1-r0"]["host_bound"] is None
    f = _findings(s)
    linear = f["client_tier_linear"]
    assert linear.verdict == NOT_TESTABLE and "×4: 2.69" in linear.measured
    assert "singleton-c4-a1-r0: host CPU 97%" in linear.why and "fix:" in linear.why and "quota" in linear.why
    assert f["request_multiple"].verdict == NOT_TESTABLE and "1.35×" in f["request_multiple"].measured
    # what the machine did not limit is judged as before
    assert f["singleton_software_bottleneck"].verdict == HOLDS
    assert f["pool_fix"].verdict == HOLDS and f["service_tier_flat"].verdict != NOT_TESTABLE
    line = next(x for x in text_lines([linear]))
    assert line.startswith("  [not testable on this host]") and "host CPU 97%" in line


def test_a_singleton_baseline_beside_a_pool_alone_is_judged(tmp_path):
    """No run scales a tier (the experiment `predict --target --experiment` writes: the baseline
    and the configuration named): the singleton's own plateau is still judged on the baseline."""
    f = _findings(build(_folder(tmp_path / "pair", busy_host=45.0, only=("singleton-c1-a1", "pool-c1-a1"))))
    assert f["singleton_software_bottleneck"].verdict == HOLDS and "100/s" in f["singleton_software_bottleneck"].measured
    assert f["pool_fix"].verdict == HOLDS
    assert f["client_tier_linear"].verdict not in (HOLDS, DOES_NOT_HOLD, NOT_TESTABLE)   # not measured


def test_the_same_figures_on_a_host_with_cpu_to_spare_do_not_hold(tmp_path):
    f = _findings(build(_folder(tmp_path / "quiet", busy_host=45.0)))
    assert f["client_tier_linear"].verdict == DOES_NOT_HOLD
    assert f["request_multiple"].verdict == DOES_NOT_HOLD


def test_other_programs_load_is_named_in_the_cause(tmp_path):
    """The host at 97 % while this experiment's processes used 40 %: someone else's load."""
    s = build(_folder(tmp_path / "own", busy_host=194.0))
    b = {r["id"]: r for r in s["runs"]}["singleton-c4-a1-r0"]["host_bound"]
    assert b["own"] == pytest.approx((194.0 - 5.0) / 200, abs=0.002) and "other programs" not in b["cause"]
    s = build(_folder(tmp_path / "shared", busy_host=194.0, others=120.0))
    b = {r["id"]: r for r in s["runs"]}["singleton-c4-a1-r0"]["host_bound"]
    assert b["own"] == pytest.approx(74.0 / 200, abs=0.002) and b["others"] == pytest.approx(120.0 / 200, abs=0.002)
    assert "(this experiment 37%, other programs 60%)" in b["cause"]
    s = build(_folder(tmp_path / "others", busy_host=194.0, busy_baseline=True))
    f = _findings(s)
    # a host-bound baseline: every ratio to it, and the singleton's own plateau, are untestable
    assert {k for k, v in f.items() if v.verdict == NOT_TESTABLE} >= {
        "singleton_software_bottleneck", "client_tier_linear", "request_multiple", "pool_fix"}
    assert "singleton-c1-a1-r0: host CPU 97%" in f["pool_fix"].why


def test_the_report_shows_the_verdict_in_its_own_colour(tmp_path):
    folder = _folder(tmp_path / "busy", busy_host=194.0)
    regenerate(folder)
    page = (folder / "report.html").read_text()
    assert '<td class="v untestable">not testable on this host</td>' in page
    assert ".findings td.untestable" in page


def test_a_run_whose_prime_reached_its_ceiling_reads_not_testable_never_does_not_hold(tmp_path):
    """The figures that do not hold on a quiet host (above) become untestable when the run they
    rest on was measured before its JVMs were warm (cli/testbed/run/record/warmth.py)."""
    import json
    folder = _folder(tmp_path / "cold", busy_host=45.0)
    meta_file = folder / "runs" / "singleton-c4-a1-r0" / "run.json"
    meta = json.loads(meta_file.read_text())
    why = "not warm at the ceiling of 240 s: clone-1 compiling 9% of the time (≤ 5%)"
    meta.setdefault("notes", {})["warm"] = {"verdict": "not warm", "seconds": 240.0, "why": why}
    meta_file.write_text(json.dumps(meta))
    s = build(folder)
    runs = {r["id"]: r for r in s["runs"]}
    assert runs["singleton-c4-a1-r0"]["not_warm"]["cause"] == why
    assert runs["singleton-c2-a1-r0"]["not_warm"] is None
    f = _findings(s)
    linear = f["client_tier_linear"]
    assert linear.verdict == NOT_TESTABLE
    assert f"singleton-c4-a1-r0: {why}: its steps measured JVMs still warming" in linear.why
    assert "warm_max_seconds" in linear.why
    assert f["request_multiple"].verdict == DOES_NOT_HOLD      # its own run was warm: judged as before


def test_a_run_whose_every_step_the_load_generator_limited_reads_not_testable_with_the_cause(tmp_path):
    """The pool's Locust ran in a CPU quota of 0.1 core (CPUS_LOCUST: run.json notes.locust_quota)
    and used all of it at every step: no step measured the stack, the run has no maximum, and the
    finding that needs it is not testable with that cause and the fix — not "not measured"."""
    import json
    folder = _folder(tmp_path / "starved", busy_host=45.0)
    meta_file = folder / "runs" / "pool-c1-a1-r0" / "run.json"
    meta = json.loads(meta_file.read_text())
    meta.setdefault("notes", {})["locust_quota"] = 0.1
    meta_file.write_text(json.dumps(meta))
    s = build(folder)
    runs = {r["id"]: r for r in s["runs"]}
    assert runs["pool-c1-a1-r0"]["max_throughput"] is None
    assert "the load generator was the limit" in runs["pool-c1-a1-r0"]["host_bound"]["cause"]
    assert "of its CPU quota (0.1 core)" in runs["pool-c1-a1-r0"]["host_bound"]["cause"]
    assert runs["singleton-c2-a1-r0"]["host_bound"] is None     # 20 % of a core without a quota: kept up
    pool = _findings(s)["pool_fix"]
    assert pool.verdict == NOT_TESTABLE and pool.why.startswith("pool-c1-a1-r0: the load generator was the limit")
    assert "LOADGEN_CPUS" in pool.why
