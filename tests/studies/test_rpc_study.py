"""The RPC study's modules: its parameters and points (cli/testbed/studies/rpc.py), the
figures per point and the classic findings' verdicts (analysis/studies/rpc*.py) on small
made-up measurements whose answers are known -- each rule shown to hold and to fail."""
from __future__ import annotations

import os
import types

import pytest

import method_anchors
from analysis.judge.findings import DOES_NOT_HOLD, HOLDS, NOT_MEASURED
from analysis.judge.method import RPC
from analysis.render import plots
from analysis.render.study_report import render
from analysis.studies import rpc as report
from analysis.studies import rpc_table as t
from testbed.studies.runner import StudyError
from testbed.studies import rpc


def _params(**over) -> dict:
    return {**rpc.PARAMS, **over}


@pytest.mark.parametrize("key,value,says", [
    ("calls", 0, "calls must be a whole number from 1 to 10000000"),
    ("sizes", [0, 70000], "sizes must be a non-empty list of whole numbers from 0 to"), ("sizes", [4, 4], "listed twice"),
    ("rpc", ["onc/shm-spin"], "onc/tcp"), ("raw", ["udp"], "tcp, unix, shm-spin, shm-futex"),
    ("pin", "yes", "true or false"), ("warmup", -1, "warmup")])
def test_bad_parameters_name_the_key_and_what_it_accepts(key, value, says):
    with pytest.raises(StudyError, match=says):
        rpc.check(_params(**{key: value}))


def test_points_cover_every_configuration_and_put_the_raw_floor_beside_its_calls():
    pts = rpc.points(_params())
    ids = [p.id for p in pts]
    assert len(ids) == len(set(ids)) == 6 * 8 + 4 * 6           # 6 RPC configs × (null + 7 sizes), raw 4 × 6
    assert ids[:10] == ["onc-tcp-null", "onc-unix-null", "gsoap-tcp-null", "gsoap-unix-null", "gsoap-shm-spin-null",
                        "gsoap-shm-futex-null", "raw-tcp-4", "raw-unix-4", "raw-shm-spin-4", "raw-shm-futex-4"]
    assert ids.index("raw-tcp-4096") == ids.index("gsoap-shm-futex-4096") + 1
    assert {p.params["size"] for p in pts if p.params["system"] == "raw"} == {4, 64, 256, 1024, 2048, 4096}
    quick = rpc.points(_params(sizes=[0, 64, 4096], rpc=["gsoap/tcp"], raw=["tcp"]))
    assert [p.id for p in quick] == ["gsoap-tcp-null", "raw-tcp-4", "gsoap-tcp-0", "gsoap-tcp-64", "raw-tcp-64",
                                     "gsoap-tcp-4096", "raw-tcp-4096"]


def _sample(system, transport, size, median, rep=0, client=None, server=None, p99=None, bytes_=(0, 0)):
    data = {"calls": 100, "total_us": {"median": median, "p99": p99 or 2 * median, "p1": median / 2},
            "program": {"request_bytes": bytes_[0], "response_bytes": bytes_[1], "checked": 110, "ok": 110}}
    if system == "raw":
        data["half_rtt_us"] = {"median": median / 2}
    else:
        data["client_us"] = {"median": client if client is not None else median / 4}
        data["server_us"] = {"median": server if server is not None else median / 4}
        data["transport_us"] = median - data["client_us"]["median"] - data["server_us"]["median"]
    pid = f"{system}-{transport}-{'null' if size is None else size}"
    return {"point": pid, "label": pid, "repeat": rep, "status": "ok", "data": data,
            "params": {"system": system, "transport": transport, "size": size}}


def _classic_like(shm_4k: float = 900.0, onc_unix_4k: float = 80.0) -> list[dict]:
    """A run shaped like the classic result: the lighter transports win most on small calls."""
    s = []
    for size, tcp, unix, spin, futex in ((None, 200.0, 100.0, 30.0, 90.0), (4096, 1200.0, 1000.0, shm_4k, 1000.0)):
        s += [_sample("gsoap", "tcp", size, tcp), _sample("gsoap", "unix", size, unix),
              _sample("gsoap", "shm-spin", size, spin, client=10.0, server=8.0),
              _sample("gsoap", "shm-futex", size, futex)]
        s += [_sample("onc", "tcp", size, 100.0 if size is None else 120.0, bytes_=(44, 28)),
              _sample("onc", "unix", size, 60.0 if size is None else onc_unix_4k, bytes_=(44, 28))]
    s += [_sample("raw", "tcp", 4, 80.0), _sample("raw", "unix", 4, 45.0), _sample("raw", "shm-spin", 4, 1.0),
          _sample("raw", "shm-futex", 4, 40.0)]
    return s


def _findings(samples) -> dict:
    found = report.summarize({}, samples)["findings"]
    method_anchors.check(found, RPC)            # each names its section of docs/method.md
    return {f["key"]: f for f in found}


def test_rows_take_the_median_of_the_rounds_and_their_spread():
    s = [_sample("gsoap", "tcp", None, m, rep=i) for i, m in enumerate((100.0, 110.0, 90.0))]
    for x, idle in zip(s, (0.0, 0.0, -1.0)):           # 0 % is a figure; -1 is "could not take it"
        x["data"]["program"]["server_idle_cpu_pct"] = idle
    s.append({**_sample("gsoap", "tcp", None, 5000.0, rep=3), "status": "failed"})   # not counted
    row = t.rows(s)[0]
    assert row["median_us"] == 100.0 and row["rounds"] == 3 and row["calls"] == 300
    assert row["spread"] == pytest.approx(0.2)
    assert row["idle_cpu_pct"] == 0.0


def test_classic_shaped_data_makes_every_speed_finding_hold():
    f = _findings(_classic_like())
    assert f["null_rpc"]["verdict"] == HOLDS                     # 200 / 30 = 6.7×
    assert "shm (spin) 30.0 µs (6.7×)" in f["null_rpc"]["measured"]
    assert f["speedup_shrinks"]["verdict"] == HOLDS              # 6.7× → 1.3×; ONC unix 1.7× → 1.5×
    assert f["raw_latency"]["verdict"] == HOLDS                  # 40 µs vs 0.5 µs half round trip
    assert f["rpc_layer"]["verdict"] == HOLDS                    # gSOAP 60 % → 97 %, ONC 20 % → 25 %
    assert f["null_split"]["verdict"] == DOES_NOT_HOLD           # 12 of 30 µs transport: 40 %
    assert f["null_bytes"]["verdict"] == HOLDS


def test_a_speed_up_that_grows_with_the_argument_does_not_hold():
    f = _findings(_classic_like(shm_4k=100.0))                   # 12× at 4 KiB > 6.7× at null
    assert f["speedup_shrinks"]["verdict"] == DOES_NOT_HOLD
    f = _findings(_classic_like(onc_unix_4k=40.0))               # ONC: 1.7× → 3.0×
    assert f["speedup_shrinks"]["verdict"] == DOES_NOT_HOLD and "ONC RPC over Unix socket" in f["speedup_shrinks"]["why"]


def test_findings_without_their_data_say_not_measured():
    only_tcp = [x for x in _classic_like() if x["params"]["transport"] == "tcp"]
    f = _findings(only_tcp)
    assert {k: v["verdict"] for k, v in f.items()} == {
        "null_rpc": NOT_MEASURED, "speedup_shrinks": NOT_MEASURED, "raw_latency": NOT_MEASURED,
        "rpc_layer": NOT_MEASURED, "null_split": NOT_MEASURED, "null_bytes": HOLDS}


def test_the_rpc_layer_is_the_null_call_minus_the_raw_round_trip():
    layers = {(x["system"], x["transport"]): x for x in t.rpc_layer(t.rows(_classic_like()))}
    gs = layers[("gsoap", "tcp")]
    assert (gs["raw_rtt_us"], gs["layer_us"]) == (80.0, 120.0) and gs["share"] == pytest.approx(0.6)
    onc = layers[("onc", "unix")]
    assert (onc["raw_rtt_us"], onc["layer_us"]) == (45.0, 15.0)
    f = _findings([x for x in _classic_like() if x["point"] != "onc-unix-null"] +
                  [_sample("onc", "unix", None, 50.0)])          # ONC: 20 % on TCP → 10 % on unix
    assert f["rpc_layer"]["verdict"] == DOES_NOT_HOLD


def test_report_sections_and_figures_render_from_the_summary(tmp_path):
    summary = report.summarize({}, _classic_like())
    summary["experiment"] = {"name": "rpc", "kind": "rpc",
                             "environment": {"pinning": "client on CPU 0, server on CPU 1"}}
    figs = report.figures(summary)
    assert set(figs) == {"latency", "speedup", "split"}
    pngs = {name: plots.save(fig, tmp_path, name)[0].read_bytes() for name, fig in figs.items()}
    html = render({**summary, "measurements": {"ok": 1}, "lost": []}, report, pngs)
    assert html.count('src="data:image/png;base64,') == 3
    for table_id in ("latency", "speedup", "split", "raw", "rpc-layer", "cpu", "points"):
        assert f'id="{table_id}"' in html
    assert "client on CPU 0, server on CPU 1" in html


def test_cleanup_removes_the_runs_socket_root_with_whatever_a_ctrl_c_left_in_it():
    said = []
    ctx = types.SimpleNamespace(say=said.append)
    rpc.cleanup(ctx)                                       # Ctrl-C before the first measurement: nothing to do
    root = rpc._socket_root(ctx)
    assert os.path.basename(root).startswith("tb-rpc-") and rpc._socket_root(ctx) == root
    left = os.path.join(root, "m1")                        # a measurement's folder its finally never removed
    os.mkdir(left)
    open(os.path.join(left, "server.sock"), "w").close()
    rpc.cleanup(ctx)
    assert not os.path.exists(root) and said == []
