"""Per-step samples: window rows, throughput, errors, percentiles, CPU and flags."""
import io

from analysis import steps
from analysis.load import cpu as cpumod
from analysis.load import folder, steplog
from analysis.load.settings import Settings

S = Settings()


def run_with(*step_list):
    return {"id": "r", "steps": [dict(zip(("index", "users", "start", "measure_from", "end"), s))
                                 for s in step_list]}


def test_throughput_is_count_increase_over_rows_inside_the_window(history):
    rows = history([100] * 40)                      # 100 requests/s, rows stamped 1000..1039
    (s,) = steps.compute(run_with((0, 4, 1000.0, 1005.5, 1030.5)), rows, [], S)
    assert s.history_rows == 24                     # stamps 1006..1029 lie wholly inside
    assert s.requests == 2300 and s.throughput == 100.0 and s.throughput_fit == 100.0
    assert s.error_rate == 0.0 and not s.flags


def test_warm_up_traffic_is_left_out(history):
    rows = history([10] * 10 + [100] * 30)           # slow warm-up, then 100/s
    (s,) = steps.compute(run_with((0, 4, 1000.0, 1010.0, 1040.0)), rows, [], S)
    assert s.throughput == 100.0


def test_percentiles_come_from_the_last_row_of_the_window(history):
    rows = history([100] * 30)
    (s,) = steps.compute(run_with((0, 4, 1000.0, 1005.0, 1025.0)), rows, [], S)
    assert (s.p50_ms, s.p95_ms, s.p99_ms) == (10.0, 20.0, 30.0)


def test_window_shorter_than_locust_percentile_window_is_noted_but_kept(history):
    (s,) = steps.compute(run_with((0, 4, 1000.0, 1002.0, 1008.0)), history([50] * 10), [], S)
    assert steps.SHORT_WINDOW in s.flags and not s.excluded


def test_high_error_step_is_flagged_and_excluded(history):
    rows = history([100] * 30, failures=[5] * 30)    # 5 % failures
    (s,) = steps.compute(run_with((0, 4, 1000.0, 1005.0, 1025.0)), rows, [], S)
    assert steps.HIGH_ERRORS in s.flags and s.excluded and abs(s.error_rate - 0.05) < 1e-9


def test_saturated_locust_process_flags_the_step(history):
    samples = [cpumod.Sample(1010.0 + i, "loadgen", "worker-1", "7", 95.0) for i in range(5)]
    samples += [cpumod.Sample(1010.0 + i, "loadgen", "master", "6", 5.0) for i in range(5)]
    (s,) = steps.compute(run_with((0, 4, 1000.0, 1005.0, 1025.0)), history([100] * 30), samples, S)
    assert steps.LOADGEN_SATURATED in s.flags and "worker-1" in s.flags[steps.LOADGEN_SATURATED]


def test_tier_cpu_is_the_sum_of_replica_means_and_host_is_kept_apart(history):
    samples = [cpumod.Sample(1010.0, "clone", "1", "1", 30.0), cpumod.Sample(1012.0, "clone", "1", "1", 50.0),
               cpumod.Sample(1010.0, "clone", "2", "2", 20.0), cpumod.Sample(1010.0, "host", "all", "", 120.0),
               cpumod.Sample(1500.0, "clone", "2", "2", 99.0)]           # outside the window
    (s,) = steps.compute(run_with((0, 4, 1000.0, 1005.0, 1025.0)), history([100] * 30), samples, S)
    assert s.cpu["clone"] == 60.0 and s.cpu_max_replica["clone"] == 40.0
    assert s.replicas["clone"] == 2 and s.host_cpu == 120.0 and "host" not in s.cpu


def test_step_without_end_is_measured_to_the_last_row_and_flagged_incomplete(history):
    rows = history([100] * 20)
    out = steps.compute(run_with((0, 1, 990.0, 995.0, 1000.0), (1, 4, 1000.0, 1003.0, None)), rows, [], S)
    assert out[1].excluded and steps.INCOMPLETE in out[1].flags
    assert out[1].throughput == 100.0                # still measured, for the record


def test_history_ending_before_the_step_end_marks_the_step_incomplete(history):
    (s,) = steps.compute(run_with((0, 4, 1000.0, 1002.0, 1040.0)), history([100] * 15), [], S)
    assert steps.INCOMPLETE in s.flags and "truncated" in s.flags[steps.INCOMPLETE]


def test_step_with_one_history_row_is_incomplete_not_a_division_by_zero(history):
    (s,) = steps.compute(run_with((0, 4, 1000.0, 1003.0, 1004.5)), history([100] * 10), [], S)
    assert s.throughput is None and steps.INCOMPLETE in s.flags


def test_counter_reset_counts_from_zero_instead_of_going_negative(history):
    rows = history([100] * 10)
    rows = rows[:5] + [r.__class__(r.timestamp, 1, r.total_requests - 500, 0, None, None, None) for r in rows[5:]]
    (s,) = steps.compute(run_with((0, 1, 999.0, 1000.0, 1010.0)), rows, [], S)
    assert s.requests >= 0 and s.throughput >= 0 and steps.COUNTER_RESET in s.flags


def test_step_log_lines_become_steps_and_a_cut_line_is_skipped():
    log = io.StringIO('{"index": 0, "users": 1, "start": 1.0, "measure_from": 6.0}\n'
                      '{"index": 0, "end": 21.0}\n{"index": 1, "users": 2, "start": 21.0, "measure_from": 26.0}\n'
                      '{"index": 1, "en')
    assert steplog.from_step_log(log) == [
        {"index": 0, "users": 1, "start": 1.0, "measure_from": 6.0, "end": 21.0},
        {"index": 1, "users": 2, "start": 21.0, "measure_from": 26.0, "end": None}]


def test_interrupted_sample_run_keeps_finished_steps_and_reports_the_cut(data):
    r = folder.load_run(data / "segments-handmade/runs/path5-r0")
    out = steps.compute(r.meta, r.history, r.cpu, S)
    assert [s.excluded for s in out] == [False, False, False, False, True]
    assert any("dropped" in w for w in r.lost) and r.status == "interrupted"


def test_steps_csv_row_has_every_column_and_empty_cells_for_missing_values(history):
    (s,) = steps.compute(run_with((0, 4, 1000.0, 1005.0, 1025.0)), history([100] * 30), [], S)
    row = steps.csv_row(s)
    assert tuple(row) == steps.STEPS_CSV_COLUMNS and row["cpu_clone"] == "" and row["throughput"] == 100.0


def test_live_run_says_its_last_step_is_still_running(history):
    run = dict(run_with((0, 4, 1000.0, 1003.0, None)), status="running")
    (s,) = steps.compute(run, history([100] * 20), [], S)
    assert "still running" in s.flags[steps.INCOMPLETE] and s.throughput == 100.0
