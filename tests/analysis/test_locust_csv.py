"""Locust CSV column names and readers, checked against Locust itself and a real sample."""
import io
import json
import subprocess
import sys

from analysis.load import locust_csv as lc
def test_column_constants_are_the_ones_locust_writes(data):
    header = (data / "real-sample/runs/path1-r0" / lc.HISTORY_FILE).read_text().splitlines()[0]
    for column in (lc.TIMESTAMP, lc.USER_COUNT, lc.NAME, lc.P50, lc.P95, lc.P99,
                   lc.TOTAL_REQUEST_COUNT, lc.TOTAL_FAILURE_COUNT):
        assert column in header.split(",")
    # asked of Locust in a process of its own: importing locust monkey-patches the importer
    readable = json.loads(subprocess.run(
        [sys.executable, "-c", "import json; from locust import stats as s; "
         "print(json.dumps(s.get_readable_percentiles(s.PERCENTILES_TO_REPORT)))"],
        capture_output=True, text=True, check=True, timeout=60).stdout)
    assert {lc.P50, lc.P95, lc.P99} <= set(readable)


def test_real_history_keeps_only_aggregated_rows_with_growing_counts(data):
    h = lc.read_history(data / "real-sample/runs/path1-r0" / lc.HISTORY_FILE)
    assert len(h.rows) > 20 and h.dropped_rows == 0
    counts = [r.total_requests for r in h.rows]
    assert counts == sorted(counts) and counts[-1] > 1000


def test_percentile_not_available_reads_as_none():
    text = ("Timestamp,User Count,Type,Name,Requests/s,Failures/s,50%,95%,99%,"
            "Total Request Count,Total Failure Count\n"
            "100,0,,Aggregated,0,0,N/A,N/A,N/A,0,0\n")
    row = lc.parse_history(io.StringIO(text)).rows[0]
    assert row.p50_ms is None and row.p99_ms is None and row.total_requests == 0


def test_a_row_cut_mid_line_is_dropped_and_counted():
    text = ("Timestamp,User Count,Type,Name,Requests/s,Failures/s,50%,95%,99%,"
            "Total Request Count,Total Failure Count\n"
            "100,1,,Aggregated,5,0,3,4,5,10,0\n"
            "101,1,,Aggregated,5,0,3")
    h = lc.parse_history(io.StringIO(text))
    assert len(h.rows) == 1 and h.dropped_rows == 1


def test_per_request_name_rows_are_counted_not_mixed_in():
    text = ("Timestamp,User Count,Type,Name,Requests/s,Failures/s,50%,95%,99%,"
            "Total Request Count,Total Failure Count\n"
            "100,1,GET,/seg/1,5,0,3,4,5,10,0\n100,1,,Aggregated,5,0,3,4,5,10,0\n")
    h = lc.parse_history(io.StringIO(text))
    assert len(h.rows) == 1 and h.named_rows == 1


def test_failure_summary_lists_most_frequent_first():
    rows = [{"Name": "/a", "Error": "x", "Occurrences": "2"}, {"Name": "/b", "Error": "y", "Occurrences": "9"}]
    assert [r["name"] for r in lc.failure_summary(rows)] == ["/b", "/a"]
