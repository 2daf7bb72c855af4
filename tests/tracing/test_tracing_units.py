"""Tracing's pieces without a stack (docs/tracing.md): HAProxy's log line -> span, the HAProxy
config with and without tracing (checked by HAProxy itself), Locust's sampled share, the
experiment key, and the decomposition of real traces (tests/tracing/data: /seg/5 through each
backend, recorded from a local stack with tracing on)."""
from __future__ import annotations

import json
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from analysis.measure import traces
from testbed.haproxy import config as haproxy
from testbed.haproxy import spans as haproxy_spans
from testbed.observe import tracing
from testbed.config import StackConfig

DATA = Path(__file__).parent / "data"
LINE = ('tp 0af7651916cd43dd8448eb211c80319c b7ad6b7169203331 17abe49213124b2d 1795580886.259 0 2 0 1 3 6 15 '
        '200 web front front1 GET "/seg/5?backend=axis&op=ping&n=0"')


def test_a_haproxy_log_line_becomes_a_span_below_its_caller():
    rec = haproxy_spans.parse(LINE)
    span = haproxy_spans.span(rec)
    assert (span["traceId"], span["parentId"], span["id"]) == (
        "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", "17abe49213124b2d")
    assert span["timestamp"] == (1795580886259 + 0 + 2) * 1000      # accept + %Th + %Ti, in µs
    assert span["duration"] == 15 * 1000                             # %Ta
    assert span["name"] == "web → front" and span["localEndpoint"]["serviceName"] == "haproxy"
    assert span["tags"]["http.path"] == "/seg/5" and span["tags"]["haproxy.server"] == "front1"
    marks = [a["value"] for a in span["annotations"]]
    assert marks == ["request headers read", "dequeued", "connected", "response headers"]
    assert span["tags"]["haproxy.derived_from"].startswith("log line")


@pytest.mark.parametrize("line", ["", "hello", LINE.replace("tp ", "xx "), LINE.replace("0af76519", "0AF7651Z"),
                                  LINE.replace(" 15 200", " x 200")])
def test_a_line_that_is_not_a_sampled_request_is_ignored(line):
    assert haproxy_spans.parse(line) is None


def test_a_failed_request_span_says_error():
    span = haproxy_spans.span(haproxy_spans.parse(LINE.replace(" 200 web", " 503 web")))
    assert span["tags"]["error"] == "503"


def _dgram() -> socket.socket:
    return socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)


def test_a_signalled_relay_receives_until_the_next_one_binds_then_sends_what_it_has(monkeypatch, tmp_path):
    """A reload's handover (haproxy_spans.Handover): after SIGUSR1 the relay keeps receiving while
    the socket path is its own, leaves once the next relay has renamed its socket onto the path,
    and its last lines go to Zipkin (here a closed port: counted as dropped, not lost silently at
    exit); HAProxy's lines after the rename reach the next relay -- none is lost in between."""
    path = tmp_path / "relay" / "spans.sock"
    handover = haproxy_spans.Handover([path])
    handover.since = time.monotonic() - 0.5        # signalled; no second relay in a test: not a stop yet
    monkeypatch.setattr(haproxy_spans, "successor_started", lambda anchor=None: True)      # a reload
    monkeypatch.setattr(haproxy_spans, "HANDOVER_MAX_S", 3600.0)
    out: dict = {}
    server = threading.Thread(target=lambda: out.update(relay=haproxy_spans.serve(
        path, "http://127.0.0.1:9", handover=handover)), daemon=True)
    server.start()
    deadline = time.monotonic() + 5
    while handover.inodes is None and time.monotonic() < deadline:
        time.sleep(0.05)
    with _dgram() as haproxy_log:
        haproxy_log.sendto(LINE.encode(), str(path))
        time.sleep(0.5)
        assert server.is_alive(), "the relay left while the path was its own"
        successor, _ = haproxy_spans.bind(path)
        haproxy_log.sendto(LINE.encode(), str(path))       # after the rename: the next relay's
        server.join(30)
        assert successor.recv(4096) == LINE.encode()
        successor.close()
    assert not server.is_alive(), "the relay stayed after the next one took the path"
    counts = out["relay"].counts
    assert (counts["lines"], counts["sent"] + counts["dropped"]) == (1, 1)


def test_a_relay_on_several_sockets_leaves_once_the_next_one_has_taken_them_all(monkeypatch, tmp_path):
    """HAProxy deals its lines out to the relay's sockets in turn: the old relay receives on each
    path the next one has not yet taken, and leaves when it has taken every one."""
    from testbed.observe.tracing import relay_paths
    base = tmp_path / "relay" / "spans.sock"
    paths = relay_paths(base, 3)
    handover = haproxy_spans.Handover(paths)
    handover.since = time.monotonic() - 0.5
    monkeypatch.setattr(haproxy_spans, "successor_started", lambda anchor=None: True)
    monkeypatch.setattr(haproxy_spans, "HANDOVER_MAX_S", 3600.0)
    out: dict = {}
    server = threading.Thread(target=lambda: out.update(relay=haproxy_spans.serve(
        base, "http://127.0.0.1:9", handover=handover, sockets=3)), daemon=True)
    server.start()
    deadline = time.monotonic() + 5
    while handover.inodes is None and time.monotonic() < deadline:
        time.sleep(0.05)
    taken = []
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as haproxy_log:
        for path in paths:
            haproxy_log.sendto(LINE.encode(), str(path))          # to the old relay: the path is still its own
            if taken:
                time.sleep(0.3)
                assert server.is_alive(), f"the relay left with {len(taken)} of {len(paths)} paths taken"
            taken.append(haproxy_spans.bind(path)[0])
        server.join(30)
    for sock in taken:
        sock.close()
    assert not server.is_alive() and out["relay"].counts["lines"] == len(paths)


def test_a_relay_signalled_with_no_successor_leaves_without_waiting_for_one(monkeypatch, tmp_path):
    """A stop sends SIGUSR1 too, and no next relay follows: the relay leaves, its path its own."""
    path = tmp_path / "relay" / "spans.sock"
    monkeypatch.setattr(haproxy_spans, "successor_started", lambda anchor=None: False)     # a stop
    monkeypatch.setattr(haproxy_spans, "HANDOVER_MAX_S", 3600.0)
    handover = haproxy_spans.Handover([path])
    handover.since = time.monotonic() - haproxy_spans.SUCCESSOR_S
    server = threading.Thread(target=haproxy_spans.serve, args=(path, "http://127.0.0.1:9"),
                              kwargs={"handover": handover}, daemon=True)
    server.start()
    server.join(30)
    assert not server.is_alive(), "a signalled relay with no successor waited for one"


def test_the_relay_will_not_listen_in_a_folder_someone_else_may_enter(tmp_path):
    """Only HAProxy may send it lines: a folder of this user's that others may enter is closed to
    them (0700), anyone else's (here a symlink: not a folder of ours) is refused."""
    loose = tmp_path / "loose"
    loose.mkdir(mode=0o777)
    loose.chmod(0o777)
    sock, _ = haproxy_spans.bind(loose / "spans.sock")
    sock.close()
    assert loose.stat().st_mode & 0o777 == 0o700
    (tmp_path / "link").symlink_to(loose)
    with pytest.raises(haproxy_spans.RelayError, match="not a directory of this user"):
        haproxy_spans.bind(tmp_path / "link" / "spans.sock")


@pytest.mark.parametrize("folder", ["with space", "with#hash", "with$dollar", "with'quote"])
def test_a_path_haproxys_program_line_would_split_or_expand_is_refused_naming_the_fix(folder):
    import dataclasses
    import tempfile
    with tempfile.TemporaryDirectory(prefix="tb") as short:     # a Unix socket's path is at most 107 bytes
        base = Path(short)
        ok = tracing.local_haproxy(dataclasses.replace(StackConfig(), state_dir=base / "plain"))[1]
        assert "command " in ok and str(base / "plain") in ok
        with pytest.raises(tracing.TracingError, match="move it to a path of letters, digits"):
            tracing.local_haproxy(dataclasses.replace(StackConfig(), state_dir=base / folder))


@pytest.mark.skipif(not shutil.which("haproxy"), reason="haproxy not installed")
@pytest.mark.parametrize("traced", [False, True])
def test_haproxy_accepts_its_config_with_and_without_tracing(tmp_path, traced):
    cfg = StackConfig(state_dir=tmp_path, knobs={})
    text = haproxy.render(cfg, {}, trace=tracing.local_haproxy(cfg) if traced else ("", ""))
    path = tmp_path / "haproxy.cfg"
    path.write_text(text)
    (tmp_path / "haproxy.state").write_text("1\n")
    r = subprocess.run(["haproxy", "-c", "-f", str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert ("traceparent" in text) is traced and ("program trace-relay" in text) is traced
    assert text.count("set-log-level silent unless traced") == (3 if traced else 0)   # web, clones, soap


def test_a_docker_config_traces_only_where_zipkin_resolves():
    assert "traceparent" not in haproxy.render_docker({"UI_PASSWORD": "x"}, tracing=False)
    assert "--zipkin http://zipkin:9411" in haproxy.render_docker({"UI_PASSWORD": "x"}, tracing=True)
    assert haproxy.docker_tracing({"TRACING": "0"}) is False


def test_locust_share_takes_fractions_and_percentages_and_refuses_the_rest():
    # in a process of its own: importing Locust monkey-patches this one (gevent)
    code = """
import json, trace_context as t
bad = []
for text in ("-0.1", "1.5", "lots", "101%"):
    try:
        t.share(text)
    except ValueError as e:
        bad.append(str(e))
trace_id, span_id = t.Tracer.ids()
print(json.dumps({"ok": [t.share("0.01"), t.share("5%"), t.share(1)], "bad": bad, "ids": [trace_id, span_id]}))
"""
    import sys
    r = subprocess.run([sys.executable, "-c", code], cwd=tracing.ROOT / "loadgen", capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr[-2000:]
    got = json.loads(r.stdout.splitlines()[-1])
    assert got["ok"] == [0.01, 0.05, 1.0]
    assert len(got["bad"]) == 4 and all("--trace-sample" in e for e in got["bad"])
    trace_id, span_id = got["ids"]
    assert len(trace_id) == 32 and len(span_id) == 16 and int(trace_id, 16) and int(span_id, 16)


def test_trace_sample_is_an_experiment_load_key_checked_like_the_others():
    from testbed.experiment.plan import DefinitionError, load_plan
    assert load_plan([({"trace_sample": 1.0}, "x")], "x").trace_sample == 1.0
    assert load_plan([({}, "x")], "x").trace_sample == 0.01
    for bad in (1.5, -0.1, "all"):
        with pytest.raises(DefinitionError, match="trace_sample"):
            load_plan([({"trace_sample": bad}, "x")], "x")


@pytest.mark.parametrize("backend", ["axis", "gsoap"])
def test_a_recorded_trace_decomposes_into_parts_that_add_up_to_locusts_span(backend):
    spans = json.loads((DATA / f"seg5-{backend}.json").read_text())
    d = traces.decompose(spans)
    assert d["service"] == backend
    assert set(d["tiers"]) == {"front", "clone", backend}
    assert set(d["hops"]) == set(traces.HOPS) and set(d["haproxy"]) == set(traces.HOPS)
    assert sum(d["tiers"].values()) + sum(d["hops"].values()) == pytest.approx(d["total"], abs=1e-6)
    assert set(d["segments"]) == {"3", "4", "5"}
    invoker = next(s for s in spans if s["name"] == "invoker.invoke")
    assert d["segments"]["5"] == pytest.approx(invoker["duration"] / 1000)


def test_a_trace_without_locusts_span_is_not_decomposed():
    spans = [s for s in json.loads((DATA / "seg5-axis.json").read_text())
             if s["localEndpoint"]["serviceName"] != "locust"]
    assert traces.decompose(spans) is None


def test_low_load_is_a_quiet_stack_and_says_when_no_step_is():
    rows = [{"users": 4, "step": 1, "traces": 9, "stack_share": 0.5},
            {"users": 16, "step": 2, "traces": 9, "stack_share": 0.9}]
    assert traces.low_load(rows) == (rows[0], False)
    rows.append({"users": 1, "step": 0, "traces": 3, "stack_share": 0.45})   # one user, think time 0: busy
    assert traces.low_load(rows) == (rows[2], False)
    assert traces.low_load([{"users": 8, "step": 0, "traces": 2, "stack_share": 0.1}])[1] is True


def test_a_segment_is_read_at_the_quietest_low_load_step_of_its_series_that_passes_it():
    busy = {"users": 1, "step": 0, "traces": 10, "stack_share": 0.6, "segments": {"3": 0.004}}
    p3 = {"run_id": "axis-path3", "path": 3, "series": "axis ping n=0", "steps": [busy]}
    quiet = {"users": 1, "step": 0, "traces": 40, "stack_share": 0.05, "segments": {"3": 0.002, "4": 0.003, "5": 2.0}}
    low = {"run_id": "axis-low-load", "path": 5, "series": "axis ping n=0", "steps": [quiet]}
    other = {"run_id": "gsoap-low", "path": 5, "series": "gsoap ping n=0",
             "steps": [{**quiet, "stack_share": 0.01, "segments": {"3": 9.0}}]}
    assert traces.segment_at_low_load("3", p3, [p3, low, other]) == (low, quiet, True)
    assert traces.segment_at_low_load("3", p3, [p3, other]) == (p3, busy, False)   # no quiet step of its series
    law = [{"series": "axis ping n=0", "segment": 3, "throughput": 500.0}]         # 1/T(3) = 2 ms
    (row,) = traces.agreement(law, [p3, low, other], cores=2)
    assert (row["run_id"], row["low_load"], row["span_ms"], row["agree"]) == ("axis-low-load", True, 0.002, False)
    # the other figure differences the path runs themselves: the front on path 3 minus on path 2
    busy["front"] = 1.25
    p2 = {"run_id": "axis-path2", "path": 2, "series": "axis ping n=0",
          "steps": [{"users": 1, "step": 0, "traces": 10, "stack_share": 0.6, "front": 1.0}]}
    quiet["front"] = 3.0
    (row,) = traces.agreement(law, [p2, p3, low, other], cores=2)
    assert row["diff_ms"] == pytest.approx(0.25)


def test_agreement_is_within_the_stated_share_of_one_over_t_k():
    runs = [{"run_id": "p5", "path": 5, "series": "axis ping n=0",
             "steps": [{"users": 1, "step": 0, "traces": 10, "stack_share": 0.3, "segments": {"5": 11.0}}]}]
    law = [{"series": "axis ping n=0", "segment": 5, "throughput": 100.0}]          # 1/T(5) = 10 ms
    (row,) = traces.agreement(law, runs, cores=2)
    assert row["law_ms"] == pytest.approx(10.0) and row["ratio"] == pytest.approx(1.1) and row["agree"]
    runs[0]["steps"][0]["segments"]["5"] = 20.0
    (row,) = traces.agreement(law, runs, cores=2)
    assert not row["agree"] and "2 × 1/T(k)" in row["why"]
    assert traces.agreement([{"series": "axis ping n=0", "segment": 5, "throughput": None, "derived": None}],
                            runs, 2)[0]["agree"] is None


def test_overhead_cycles_alternate_and_full_sampling_is_left_out_of_them():
    from testbed.bench.tracing_overhead import CONDITIONS, cycle_order
    cycles = [cycle_order(i) for i in range(4)]
    assert cycles[0] == ["off", "0%", "1%"] and cycles[1] == ["1%", "0%", "off"]
    assert cycles[2] == cycles[0] and cycles[3] == cycles[1]
    # 100 % is measured once, after the cycles: Zipkin keeps what it was sent
    assert all("100%" not in c for c in cycles) and {n for n, _ in CONDITIONS} == {*cycles[0], "100%"}


def _run(rnd, cycle, name, rps, p95=10.0):
    return {"round": rnd, "cycle": cycle, "condition": name, "rps": rps, "p95_ms": p95}


def test_overhead_ratios_are_paired_per_cycle_then_median_of_rounds():
    from testbed.bench.tracing_overhead import figures
    rows = []
    # round 0: off drifts up from cycle to cycle; 1 % is 0.98 of off in the same cycle each time
    for c, off in enumerate((1000.0, 1100.0)):
        rows += [_run(0, c, "off", off), _run(0, c, "0%", off * 0.99), _run(0, c, "1%", off * 0.98, 12.0)]
    # round 1: a pair of stacks whose traced one is slower: 0.90
    rows += [_run(1, 0, "off", 900.0), _run(1, 0, "0%", 810.0), _run(1, 0, "1%", 810.0)]
    # round 2: 0.96
    rows += [_run(2, 0, "off", 1000.0), _run(2, 0, "0%", 960.0), _run(2, 0, "1%", 960.0)]
    rows += [_run(0, None, "100%", 630.0), _run(1, None, "100%", 540.0), _run(2, None, "100%", 600.0)]
    fig = figures(rows)
    one = fig["1%"]
    assert one["rounds"] == [0.98, 0.9, 0.96] and one["median"] == 0.96
    assert one["ratios"] == [0.98, 0.98, 0.9, 0.96]           # every cycle, not a ratio of medians
    assert one["ci95"][0] < one["mean"] < one["ci95"][1]
    assert fig["0%"]["rounds"] == [0.99, 0.9, 0.96]
    assert one["p95_ratio_median"] == 1.1       # per cycle: 12 / 10 twice in round 0, 10 / 10 twice after
    # 100 %: over the round's median off (round 0: 1050)
    assert fig["100%"]["rounds"] == [0.6, 0.6, 0.6] and fig["100%"]["median"] == 0.6
    # a cycle without its off run gives no ratio
    assert figures([_run(0, 0, "1%", 900.0)]) == {}


def test_the_traced_stack_takes_ports_and_a_state_folder_of_its_own(tmp_path):
    from testbed.observe import tracing
    from testbed.config import StackConfig
    from testbed.bench.tracing_overhead import traced_config
    cfg = StackConfig(replica_port_base=21000, state_dir=tmp_path / "st", knobs={"X": "1"})
    other = traced_config(cfg)
    assert other.replica_port_base >= 22000 and other.state_dir == tmp_path / "st" / "tracing-overhead"
    assert set(other.entry_ports().values()).isdisjoint(cfg.entry_ports().values())
    assert tracing.zipkin_port(other) != tracing.zipkin_port(cfg)
    assert other.knobs == cfg.knobs and other.knobs is not cfg.knobs     # the second stack's overrides stay its own

