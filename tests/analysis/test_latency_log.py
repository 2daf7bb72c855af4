"""A run's exact latencies (analysis/load/latency.py): HdrHistogram's interval log as the load
generator writes it (loadgen/latency_record.py), read into per-step percentiles with intervals."""
import pytest
from hdrh.histogram import HdrHistogram

from analysis import steps
from analysis.load import latency
from analysis.load.latency import LogWriter, new_histogram
from analysis.load.settings import Settings


def write_log(path, parts):
    """parts: (start, end, values in µs[, tag]) each, as a worker's reports would be written."""
    w = LogWriter(str(path))
    for start, end, values, *tag in parts:
        h = new_histogram()
        for v in values:
            h.record_value(v)
        w.interval(start, end, h.get_max_value(), h.encode().decode("ascii"), *tag)
    w.close()


def test_intervals_add_up_by_their_middle_and_percentiles_carry_their_interval(tmp_path):
    log = tmp_path / latency.LOG_FILE
    write_log(log, [(1000.0, 1000.5, range(1, 501)), (1000.5, 1001.0, range(501, 1001)),   # a step's
                    (1000.9, 1001.4, [5_000_000]),                                          # the next one's
                    (999.4, 999.9, [7])])                                                   # before it
    intervals, bad = latency.read(log)
    assert not bad and len(intervals) == 4
    s = latency.of_window(intervals, 999.95, 1001.0)
    assert s["count"] == 1000 and s["min_ms"] == 0.001 and s["max_ms"] == 1.0
    assert s["p50_ms"] == 0.5 and s["p99_ms"] == pytest.approx(0.99, rel=1e-3)
    lo, hi = s["ci95"]["p50"]       # ranks 500 ∓ 1.96·√250 (30.99), outward: 469 and 531
    assert lo == pytest.approx(0.469, rel=1e-3) and hi == pytest.approx(0.531, rel=1e-3)
    assert s["ci95"]["p99.9"] is None                      # 1000 · 0.999 · 0.001 < 5: too far out
    assert latency.of_window(intervals, None, None)["max_ms"] == pytest.approx(5000.0, rel=1e-3)   # its bucket
    assert latency.of_window(intervals, 2000.0, 2001.0) is None


def test_an_open_loops_tags_give_the_latency_from_the_schedule_its_lag_and_the_dropped(tmp_path):
    log = tmp_path / latency.LOG_FILE
    write_log(log, [(1000.0, 1000.5, [2000] * 10), (1000.0, 1000.5, [2000] * 9 + [900_000], latency.INTENDED),
                    (1000.0, 1000.5, [1] * 9 + [898_000], latency.LAG), (1000.0, 1000.5, [5, 5, 5], latency.DROPPED)])
    assert "Tag=intended,1000.000,0.500," in log.read_text()
    intervals, bad = latency.read(log)
    assert not bad and [iv.tag for iv in intervals] == ["", "intended", "lag", "dropped"]
    s = latency.of_window(intervals, None, None)
    assert s["count"] == 10 and s["max_ms"] == pytest.approx(2.0, rel=1e-3)        # as sent: no stall seen
    assert s["intended"]["max_ms"] == pytest.approx(900.0, rel=1e-3)              # from the schedule: it was
    assert s["lag"]["max_ms"] == pytest.approx(898.0, rel=1e-3) and s["dropped"] == 3
    write_log(tmp_path / "closed.hlog", [(1000.0, 1000.5, [2000])])           # a closed loop's log
    assert "intended" not in latency.of_window(latency.read(tmp_path / "closed.hlog")[0], None, None)


def test_a_cut_line_is_noted_and_the_rest_read(tmp_path):
    log = tmp_path / latency.LOG_FILE
    write_log(log, [(1000.0, 1000.5, [10, 20])])
    with open(log, "a") as f:
        f.write("1000.5,0.5,0.0,HISTFAAAA\n1001.0,0.5")    # a histogram cut short, then the file cut mid-line
    intervals, bad = latency.read(log)
    assert len(intervals) == 1 and latency.merged(intervals).get_total_count() == 2
    assert bad == ["line 7: its histogram does not decode", "line 8: not an interval"]


def test_steps_take_the_exact_percentiles_where_the_run_has_them(tmp_path, history):
    rows = history([100] * 10)                      # Locust's: p50 10, p95 20, p99 30 ms
    log = tmp_path / latency.LOG_FILE
    write_log(log, [(1000.0 + k / 2, 1000.5 + k / 2, [1000 * (k + 1)] * 50) for k in range(16)])
    intervals, _ = latency.read(log)
    run = {"id": "r", "steps": [{"index": 0, "users": 4, "start": 1000.0, "measure_from": 1002.0, "end": 1008.0}]}
    (exact,) = steps.compute(run, rows, [], Settings(), intervals)
    (rounded,) = steps.compute(run, rows, [], Settings())
    assert rounded.latency is None and rounded.p50_ms == 10.0 and steps.SHORT_WINDOW in rounded.flags
    # the intervals whose middle lies in [1002, 1008]: k = 4..15 (middles 1002.25 ... 1007.75)
    assert exact.latency["count"] == 12 * 50 and exact.latency["max_ms"] == pytest.approx(16.0, rel=1e-3)
    assert exact.p50_ms == exact.latency["p50_ms"] == pytest.approx(10.0, rel=1e-3)
    assert exact.p99_ms == pytest.approx(16.0, rel=1e-3) and steps.SHORT_WINDOW not in exact.flags
    row = steps.csv_row(exact)
    assert row["latency_source"] == "hdr" and row["latency_count"] == 600
    assert row["p99_9_ms"] == pytest.approx(16.0, rel=1e-3)
    assert steps.csv_row(rounded)["latency_source"] == "locust"


def test_the_histogram_keeps_three_significant_digits_from_a_microsecond_to_an_hour():
    h = new_histogram()
    assert isinstance(h, HdrHistogram)
    for v in (1, 999, 123_456, 3_599_000_000):
        assert h.record_value(v)
        assert abs(h.get_highest_equivalent_value(v) - v) <= v / 1000
