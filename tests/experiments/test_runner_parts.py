"""The runner's parts on their own: CPU sampler, reconfiguration plan, Locust command line,
result files, progress line, thread-dump tiers, the CLI verbs (no stack needed)."""
from __future__ import annotations

import csv
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from testbed.run import reconfigure, results
from testbed.experiment import definition
from testbed.run.record import threaddumps
from testbed.run.locustrun import master_argv, worker_argv
from testbed.run.progress import latest_history, line
from testbed.run.record.sampler import CpuSampler, Target
from testbed.tiers import knobs_read

SEG5 = definition.load("clones").runs[0]


def test_cpu_sampler_writes_one_row_per_process_per_second_and_the_host(tmp_path):
    busy = subprocess.Popen([sys.executable, "-c", "import time\nt=time.time()\nwhile time.time()-t<4: pass"])
    idle = subprocess.Popen([sys.executable, "-c", "import time\ntime.sleep(4)"])
    try:
        s = CpuSampler(tmp_path / "cpu.csv", lambda: [Target("front", "1", busy.pid), Target("axis", "1", idle.pid)],
                       interval=0.5).start()
        time.sleep(2.6)
        s.stop()
    finally:
        for p in (busy, idle):
            p.kill()
            p.wait()
    rows = list(csv.DictReader(open(tmp_path / "cpu.csv")))
    assert list(rows[0]) == ["timestamp", "tier", "replica", "pid", "cpu_percent"]
    front = [r for r in rows if r["tier"] == "front"]
    host = [r for r in rows if r["tier"] == "host"]
    assert len(front) >= 3 and len(host) >= 4          # the first reading of a process is skipped
    assert all(r["pid"] == str(busy.pid) and r["replica"] == "1" for r in front)
    # a busy loop shows up beside an idle process (on a loaded machine it may get a small
    # share of a core: the comparison, not a fixed share, is what says it was counted)
    busiest = max(float(r["cpu_percent"]) for r in front)
    idle_max = max(float(r["cpu_percent"]) for r in rows if r["tier"] == "axis")
    assert busiest > 5 and busiest > 5 * idle_max
    assert all(r["pid"] == "" and r["replica"] == "all" for r in host)


def test_cpu_sampler_adds_the_kernels_packet_work_only_where_asked(tmp_path):
    # container modes (kernel=True): the host's softirq time as tier "kernel", once an interval
    # exists; local mode: no such row (loopback's packet work is charged to the processes)
    for kernel in (True, False):
        s = CpuSampler(tmp_path / f"cpu-{kernel}.csv", lambda: [], interval=0.3, kernel=kernel).start()
        time.sleep(1.2)
        s.stop()
        rows = list(csv.DictReader(open(tmp_path / f"cpu-{kernel}.csv")))
        rows_k = [r for r in rows if r["tier"] == "kernel"]
        assert len([r for r in rows if r["tier"] == "host"]) >= 3
        if kernel:
            assert len(rows_k) >= 2 and all(r["replica"] == "softirq" and float(r["cpu_percent"]) >= 0 for r in rows_k)
        else:
            assert rows_k == []


def test_cpu_sampler_sums_a_process_tree_and_survives_processes_that_end(tmp_path):
    parent = subprocess.Popen([sys.executable, "-c",
                               "import subprocess,sys,time\n"
                               "c=subprocess.Popen([sys.executable,'-c','import time\\nt=time.time()\\n"
                               "while time.time()-t<3: pass'])\ntime.sleep(3.5)"])
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    try:
        s = CpuSampler(tmp_path / "cpu.csv", lambda: [Target("haproxy", "1", parent.pid, tree=True),
                                                      Target("front", "1", gone.pid)], interval=0.5).start()
        time.sleep(2.6)
        s.stop()
    finally:
        parent.wait()
    rows = list(csv.DictReader(open(tmp_path / "cpu.csv")))
    tree = [float(r["cpu_percent"]) for r in rows if r["tier"] == "haproxy"]
    assert tree and max(tree) > 5                       # the child's busy loop is counted (a sleeping parent reads ~0)
    assert not [r for r in rows if r["tier"] == "front"]


def test_cpu_sampler_skips_a_cgroup_that_is_gone_and_keeps_sampling_the_rest(tmp_path):
    # a killed cluster node takes its tasks' cgroups with it while the manager still lists them
    # (run fault-kill-node): the sampler must keep writing every other target and the host
    usage = tmp_path / "cpuacct.usage"
    usage.write_text("1000000000\n")
    s = CpuSampler(tmp_path / "cpu.csv", lambda: [Target("clone", "1", 0, cgroup=str(tmp_path / "gone" / "cpuacct.usage")),
                                                  Target("axis", "1", 0, cgroup=str(usage))], interval=0.3).start()
    time.sleep(1.6)
    s.stop()
    rows = list(csv.DictReader(open(tmp_path / "cpu.csv")))
    assert len([r for r in rows if r["tier"] == "host"]) >= 4
    assert len([r for r in rows if r["tier"] == "axis"]) >= 3
    assert not [r for r in rows if r["tier"] == "clone"]


def test_reconfiguration_scales_down_first_restarts_callees_first_and_scales_up_last():
    now = {"front": 1, "clone": 2, "axis": 1, "gsoap": 1}
    p = reconfigure.plan(now, {}, {"front": 1, "clone": 1, "axis": 4, "gsoap": 0},
                         {"CLIENT_MODE": "pool", "DEMAND_SERVICE_WAIT_US": "5", "DEMAND_SEG2_WAIT_US": "0"})
    assert p["down"] == {"clone": 1, "gsoap": 0}
    assert p["restart"] == ["axis", "gsoap", "clone"]   # DEMAND_SERVICE_* is read by both services
    assert p["up"] == {"axis": 4}
    assert p["knobs"] == {"CLIENT_MODE": "pool", "DEMAND_SERVICE_WAIT_US": "5"}   # 0 is the default


def test_a_stack_that_already_matches_needs_no_reconfiguration():
    run = definition.load("segments").runs[0]
    knobs = {"CLIENT_MODE": "singleton", "GSOAP_POOL_SIZE": "16"}
    p = reconfigure.plan(dict(run.tiers), knobs, run.tiers, run.stack_knobs())
    assert p == {"down": {}, "switch": [], "restart": [], "up": {}, "knobs": {}}


def test_a_lifecycle_change_alone_switches_the_running_clones_where_the_stack_can_and_restarts_otherwise():
    now, one = {"front": 1, "clone": 4, "axis": 1, "gsoap": 0}, {"front": 1, "clone": 1, "axis": 1, "gsoap": 0}
    p = reconfigure.plan(now, {"CLIENT_MODE": "singleton"}, one, {"CLIENT_MODE": "request"}, switches=True)
    assert (p["down"], p["switch"], p["restart"]) == ({"clone": 1}, ["clone"], [])
    p = reconfigure.plan(now, {}, one, {"CLIENT_MODE": "pool", "CLIENT_POOL_SIZE": "4"}, switches=True)
    assert (p["switch"], p["restart"]) == (["clone"], [])
    # no live switch on this stack (a Swarm service), another knob of the clone changes, or no clone runs
    assert reconfigure.plan(now, {}, one, {"CLIENT_MODE": "request"})["restart"] == ["clone"]
    p = reconfigure.plan(now, {}, one, {"CLIENT_MODE": "request", "DEMAND_CLONE_CPU_US": "100"}, switches=True)
    assert (p["switch"], p["restart"]) == ([], ["clone"])
    idle = {**one, "clone": 0}
    assert reconfigure.plan(idle, {}, one, {"CLIENT_MODE": "request"}, switches=True)["switch"] == []
    # another tier's knob restarts that tier, and the clones still switch
    p = reconfigure.plan(one, {}, one, {"CLIENT_MODE": "request", "DEMAND_SERVICE_WAIT_US": "5"}, switches=True)
    assert (p["switch"], p["restart"]) == (["clone"], ["axis", "gsoap"])


def test_locust_runs_headless_with_full_history_csvs_the_step_log_and_no_stats_reset(tmp_path):
    argv = master_argv(SEG5, tmp_path, "http://127.0.0.1:8080", workers=2, master_port=5599, primed=True)
    joined = " ".join(argv)
    assert "--headless" in argv and "--csv-full-history" in argv and "--reset-stats" not in joined
    assert argv[argv.index("--csv") + 1] == str(tmp_path / "locust")
    assert argv[argv.index("--step-log") + 1] == str(tmp_path / "steps.jsonl")
    assert argv[argv.index("--expect-workers") + 1] == "2" and "--web-port" not in joined
    # a prime by measurement: its ceiling, ended early by the runner's release file
    assert argv[argv.index("--prime-seconds") + 1] == f"{SEG5.load.prime_ceiling():g}" != "0" and SEG5.load.steady
    assert argv[argv.index("--step-prime-release") + 1] == str(tmp_path / "prime.release")
    assert argv[-1] == "Seg5ViaClonesAxis" and "--master" in argv
    assert master_argv(SEG5, tmp_path, "h", 2, 5599, primed=False)[
        argv.index("--prime-seconds") + 1] == "0"
    assert "--step-prime-release" not in master_argv(SEG5, tmp_path, "h", 2, 5599, primed=False)
    local = master_argv(SEG5, tmp_path, "h", workers=0, master_port=None, primed=True)
    assert "--master" not in local and "--expect-workers" not in local
    assert worker_argv(5599)[-4:] == ["--master-host", "127.0.0.1", "--master-port", "5599"]


def test_json_is_replaced_atomically_and_run_steps_follow_the_step_log(tmp_path):
    run = results.RunFile(tmp_path, {"id": "x", "steps": [], "notes": {}})
    assert json.loads((tmp_path / "run.json").read_text())["steps"] == []
    (tmp_path / "steps.jsonl").write_text(
        '{"index": 0, "users": 2, "start": 10.0, "measure_from": 12.0}\n'
        '{"index": 0, "end": 20.0}\n{"phase": "hold", "users": 2, "start": 20.0}\n{"index": 1, "us')
    assert run.refresh_steps() is True and run.refresh_steps() is False
    meta = json.loads((tmp_path / "run.json").read_text())
    assert meta["steps"] == [{"index": 0, "users": 2, "start": 10.0, "measure_from": 12.0, "end": 20.0}]
    assert meta["notes"]["phases"][0]["phase"] == "hold"
    run.finish("interrupted")
    meta = json.loads((tmp_path / "run.json").read_text())
    assert meta["status"] == "interrupted" and meta["ended"] and not list(tmp_path.glob("*.tmp"))


def test_cpu_lists_are_written_the_linux_way():
    assert results.cpu_list_text({0, 1, 2, 5, 7, 8}) == "0-2,5,7-8"
    assert results.cpu_affinity(None, None) is None
    assert results.cpu_affinity({1}, {0}) == {"loadgen": "0", "stack": "1"}


def test_progress_line_names_run_step_users_and_current_rate(tmp_path):
    (tmp_path / "locust_stats_history.csv").write_text(
        "Timestamp,User Count,Type,Name,Requests/s,Failures/s,Total Request Count,Total Failure Count\n"
        "100,8,GET,/seg/1,410.0,0.0,900,0\n100,8,,Aggregated,412.5,0.0,905,0\n")
    hist = latest_history(tmp_path)
    assert hist == {"users": 8, "rps": 412.5, "failures_per_s": 0.0, "requests": 905, "failures": 0}
    text = line(2, 7, "singleton-c2-a1-r0", 4, [{"index": 1, "users": 8, "start": 1, "measure_from": 2,
                                                 "end": None}], [], hist, {"clone": 51.0}, 120.0, 33)
    assert text.startswith("run 2/7 singleton-c2-a1-r0 · step 2/4 8 users · 412 req/s")
    assert "clone 51%" in text and "host 120%" in text


def test_thread_dumps_cover_the_java_tiers_the_path_reaches():
    assert threaddumps.tiers_reached(3, "axis") == ["front"]
    assert threaddumps.tiers_reached(5, "axis") == ["front", "clone", "axis"]
    assert threaddumps.tiers_reached(5, "gsoap") == ["front", "clone"]


def test_report_and_analyze_verbs_hand_over_to_the_analysis_cli(capsys):
    from testbed.cli import main
    assert main(["analyze", "capacity", "--throughput", "100", "--critical-users", "8", "--think-time", "10"]) == 0
    assert "1008 users" in capsys.readouterr().out
    with pytest.raises(SystemExit) as e:
        main(["report", str(Path("/nonexistent-folder"))])
    assert e.value.code == 2


def test_sigterm_ends_a_run_like_ctrl_c_even_when_sigint_is_ignored(tmp_path):
    # a run a script started in the background inherits SIGINT ignored (no job control): the
    # SIGTERM of `kill` or of a CI timeout must still end it as Ctrl-C does, with its cleanup
    code = ("import signal, sys, time\n"
            "sys.path.insert(0, sys.argv[1])\n"
            "from testbed.runcmd import sigterm_as_ctrl_c\n"
            "sigterm_as_ctrl_c()\n"
            "try:\n"
            "    print('ready', flush=True)\n"
            "    time.sleep(30)\n"
            "    print('slept through', flush=True)\n"
            "except KeyboardInterrupt:\n"
            "    print('interrupted: cleanup runs', flush=True)\n")
    import signal
    cli = str(Path(__file__).resolve().parents[2] / "cli")
    p = subprocess.Popen([sys.executable, "-c", code, cli], stdout=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        assert p.stdout.readline().strip() == "ready"
        p.send_signal(signal.SIGTERM)
        out, _ = p.communicate(timeout=15)
    finally:
        p.kill()
    assert "interrupted: cleanup runs" in out and p.returncode == 0


def test_a_result_folder_records_each_tiers_knobs_as_its_processes_read_them():
    knobs = {"CLONE_JVM_HEAP": "1g", "FRONT_JVM_HEAP": "512m", "CLONE_TOMCAT_MAX_THREADS": "50",
             "CLIENT_MODE": "pool", "GSOAP_SERVER_MODEL": "thread", "UI_PASSWORD": "s3cret"}
    read = knobs_read(knobs)
    assert read["clone"] == {"JVM_HEAP": "1g", "TOMCAT_MAX_THREADS": "50", "CLIENT_MODE": "pool"}
    assert read["front"] == {"JVM_HEAP": "512m"} and read["gsoap"] == {"GSOAP_SERVER_MODEL": "thread"}
    assert "s3cret" not in repr(read)          # HAProxy's UI password is no tier's: never written
