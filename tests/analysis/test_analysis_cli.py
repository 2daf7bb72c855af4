"""The analysis command line: report, analyze segments, analyze capacity; bad input exits 2."""
import pytest

from analysis.cli import main


def run(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as e:
        code = e.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_segments_inside_the_noise_band_prints_the_derived_value_flagged(capsys):
    code, out, _ = run(capsys, "analyze", "segments", "--path-throughput", "1=3000,2=2500,3=2400,4=2390,5=300")
    assert code == 0 and "15,000.0" in out and "343.1" in out
    t4 = out.split("T(4)")[1].split("\n")[0]
    # 2400·2390/(2400−2390) = 573,600, and the noise (3 % of 2400 = 72) allows down to 69,951
    assert "573,600 — within noise (±3.0%; at least 69,951)" in t4 and "-" not in t4.split("—")[0]


def test_segments_on_the_published_table_prints_every_segment(capsys):
    code, out, _ = run(capsys, "analyze", "segments", "--path-throughput", "1=812,2=795,3=520,4=430,5=7.4")
    lines = {line.split()[0]: line for line in out.splitlines() if line.startswith("T(")}
    assert "37,973 — within noise" in lines["T(2)"]
    assert "1,503.3" in lines["T(3)"] and "2,484.4" in lines["T(4)"] and "7.5" in lines["T(5)"]
    assert "not measurable" not in out


def test_a_path_faster_than_the_one_before_is_not_measurable_and_says_why(capsys):
    code, out, _ = run(capsys, "analyze", "segments", "--path-throughput", "1=800,2=820,3=500")
    assert "not measurable — T(1..2)=820 >= T(1..1)" in out.split("T(2)")[1].split("\n")[0]


def test_segments_prints_composition_and_capacity(capsys):
    code, out, _ = run(capsys, "analyze", "segments", "--path-throughput", "1=3000,2=2500,3=2400,4=500,5=100",
                       "--target-t5", "125", "--think-time", "1", "--critical-users", "4")
    assert code == 0 and "= 100.0/s" in out and "interactive response-time law" in out and "104 users" in out


def test_worked_example_from_the_command_line(capsys):
    code, out, _ = run(capsys, "analyze", "segments", "--path-throughput", "1=3000,2=750,3=600,4=500")
    assert code == 0 and "3,000.0" in out.split("T(4)")[1].split("\n")[0]


def test_capacity_names_the_law(capsys):
    code, out, _ = run(capsys, "analyze", "capacity", "--throughput", "300", "--critical-users", "40",
                       "--think-time", "2")
    assert code == 0 and "interactive response-time law" in out and "640 users" in out


@pytest.mark.parametrize("argv, fix", [
    (["analyze", "segments", "--path-throughput", "1:3000"], "expected k=tps pairs like 1=3000,2=2500"),
    (["analyze", "segments", "--path-throughput", "1=3000,2=abc"], "expected k=tps pairs"),
    (["analyze", "segments", "--path-throughput", "2=3000"], "path 1 is required"),
    (["analyze", "segments", "--path-throughput", "1=0"], "must be > 0"),
    (["analyze", "segments", "--path-throughput", "1=3000", "--think-time", "1"], "--critical-users"),
    (["analyze", "segments", "--path-throughput", "1=3000", "--tolerance", "x"], "expected a number"),
    (["analyze", "capacity", "--throughput", "300"], "--critical-users"),
    (["analyze", "capacity", "--throughput", "-1", "--critical-users", "1", "--think-time", "1"], ">= 0"),
    (["analyze"], "required"),
])
def test_bad_input_is_one_line_naming_the_fix_and_exit_2(capsys, argv, fix):
    code, out, err = run(capsys, *argv)
    assert code == 2 and fix in err and len(err.strip().splitlines()) == 1 and not out


def test_report_on_a_folder_that_is_not_a_result_folder_exits_2(capsys, tmp_path):
    code, _, err = run(capsys, "report", str(tmp_path))
    assert code == 2 and "experiment.json" in err and len(err.strip().splitlines()) == 1


def test_report_writes_into_output_folder(capsys, tmp_path, data):
    code, out, _ = run(capsys, "report", str(data / "real-sample"), "-o", str(tmp_path))
    assert code == 0 and (tmp_path / "report.html").is_file() and "report.html" in out
    assert not (data / "real-sample" / "report.html").exists()
