"""The two programs as processes: the server's start-up line, its flag and environment
errors (exit 2, one line naming the fix), a graceful stop on SIGTERM that finishes the
request in flight; the client's usage errors (exit 2) and transport errors (exit 3)."""
from __future__ import annotations

import os
import signal
import subprocess
import threading

import pytest

from gsoap.gsoap_http import call, client
from testbed import procs, tiers

SERVER = str(tiers.GSOAP_SERVER)


def run_server(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([SERVER, *args], capture_output=True, text=True, timeout=30,
                          env={**os.environ, **(env or {})})


def test_startup_line_shows_the_effective_configuration(gsoap_server):
    log = gsoap_server.log_text()
    assert f"GSOAP_SERVER_MODEL={gsoap_server.model}" in log
    assert f"PORT={gsoap_server.port}" in log and "MAX_XML_DEPTH=64" in log


def test_server_help_lists_every_variable():
    r = run_server("--help")
    assert r.returncode == 0
    for var in ("PORT", "BIND", "GSOAP_SERVER_MODEL", "GSOAP_POOL_SIZE", "GSOAP_BACKLOG",
                "GSOAP_RECV_TIMEOUT_S", "GSOAP_SEND_TIMEOUT_S", "GSOAP_KEEPALIVE_MAX",
                "MAX_MESSAGE_BYTES", "MAX_XML_DEPTH", "MAX_XML_OCCURS", "DEMAND_SERVICE_CPU_US",
                "DEMAND_SERVICE_WAIT_US", "DEMAND_SERVICE_LOCKED", "GSOAP_SERIALIZERS"):
        assert var in r.stdout


@pytest.mark.parametrize("args,env,names", [
    (["--model", "forking"], {}, "--model"),
    (["--pool-size", "0"], {}, "--pool-size"),
    (["--serializers", "fast"], {}, "--serializers"),
    ([], {"GSOAP_SERIALIZERS": "printf"}, "GSOAP_SERIALIZERS"),
    (["--port", "http"], {}, "--port"),
    (["--no-such-flag"], {}, "--no-such-flag"),
    (["--port"], {}, "--port"),
    ([], {"GSOAP_SERVER_MODEL": "threads"}, "GSOAP_SERVER_MODEL"),
    ([], {"MAX_XML_DEPTH": "-1"}, "MAX_XML_DEPTH"),
    ([], {"DEMAND_SERVICE_LOCKED": "maybe"}, "DEMAND_SERVICE_LOCKED"),
])
def test_bad_server_setting_exits_2_with_one_line_naming_it(args, env, names):
    r = run_server(*args, env=env)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and names in lines[0]


def test_flag_overrides_the_environment():
    r = run_server("--model", "forking", env={"GSOAP_SERVER_MODEL": "pool"})
    assert r.returncode == 2 and "--model" in r.stderr


@pytest.mark.parametrize("model", ["iterative", "thread", "pool"])
def test_sigterm_finishes_the_request_in_flight_and_exits_0(model):
    port = procs.free_port()
    p = subprocess.Popen([SERVER, "--port", str(port), "--model", model],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        proc = procs.Proc(f"gsoap-stop-{model}", p.pid, procs._start_ticks(p.pid), port, os.devnull, [SERVER])
        procs.wait_healthy(proc, f"http://127.0.0.1:{port}/health", 20)
        result = {}
        t = threading.Thread(target=lambda: result.update(call(
            f"http://127.0.0.1:{port}/gsoap", "work", 0, 1, "--wait-us", "1500000")))
        t.start()
        threading.Event().wait(0.5)   # the call is in flight (it sleeps 1.5 s in the service)
        p.send_signal(signal.SIGTERM)
        assert p.wait(timeout=10) == 0
        t.join(timeout=30)
        assert result.get("exit") == 0 and result["work"]["implementation"] == "gsoap", result
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


@pytest.mark.parametrize("args,names", [
    (["--op", "ping"], "--endpoint"),
    (["--endpoint", "http://127.0.0.1:1/gsoap"], "--op"),
    (["--endpoint", "http://127.0.0.1:1/gsoap", "--op", "pong"], "pong"),
    (["--endpoint", "ftp://x/gsoap", "--op", "ping"], "--endpoint"),
    (["--endpoint", "http://127.0.0.1:1/gsoap", "--op", "ping", "--n", "-1"], "--n"),
    (["--endpoint", "http://127.0.0.1:1/gsoap", "--op", "ping", "--connections", "0"], "--connections"),
    (["--endpoint", "http://127.0.0.1:1/gsoap", "--op", "work", "--cpu-us", "60000001"], "--cpu-us"),
    (["--endpoint", "http://127.0.0.1:1/gsoap", "--op", "ping", "--frobnicate"], "--frobnicate"),
])
def test_bad_client_arguments_exit_2_with_one_line_naming_them(args, names):
    rc, out, err = client(*args)
    assert rc == 2 and out is None
    lines = err.strip().splitlines()
    assert len(lines) == 1 and names in lines[0]


def test_client_transport_error_exits_3_with_the_error_text():
    port = procs.free_port()  # nothing listens there
    rc, out, _ = client("--endpoint", f"http://127.0.0.1:{port}/gsoap", "--op", "ping", "--json")
    assert rc == 3
    assert (out["ok"], out["errors"]) == (0, 1) and "refused" in out["fault"].lower()


def test_client_json_has_the_documented_keys(gsoap_pool_server):
    out = call(gsoap_pool_server.endpoint, "sendInts", 10)
    keys = ["client", "endpoint", "op", "n", "seed", "calls", "connections", "ok", "errors",
            "count", "checksum", "expected_checksum", "echo_equal", "work", "request_bytes",
            "response_bytes", "seconds", "throughput_rps", "latency_ms", "fault"]
    assert [k for k in out if k in keys] == keys
    assert set(out["latency_ms"]) == {"mean", "p50", "p90", "p99", "max"}
    assert out["client"] == "gsoap" and out["timings"]["total_ms"] > 0
