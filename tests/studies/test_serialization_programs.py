"""The serialization study's programs: exact, deterministic sizes; the base64 and MTOM forms
of the int buffer decode to the ints of the array; every timing is positive; the writers
agree byte for byte; both services accept every message either library generates."""
from __future__ import annotations

import urllib.request
from pathlib import Path

import pytest

from studies.serialization_programs import FAST, axis, gsoap, gsoap_item_text
from testbed import contract

OPS = ("sendBytes", "sendInts", "sendFloats", "sendDoubles", "sendIntBuffer")


@pytest.mark.parametrize("serializers", ["generated", "tuned"])
@pytest.mark.parametrize("op", OPS)
def test_gsoap_message_is_the_empty_envelope_plus_the_exact_item_text(op, serializers, tmp_path):
    empty = tmp_path / "empty.xml"
    full = tmp_path / "full.xml"
    variant = ("--serializers", serializers)
    gsoap("message", "--op", op, "--n", "0", "--seed", "5", *variant, *FAST, "--dump", str(empty))
    r = gsoap("message", "--op", op, "--n", "37", "--seed", "5", *variant, *FAST, "--dump", str(full))
    inner = "<tb:data></tb:data>" if op == "sendIntBuffer" else ""     # the empty buffer's element
    wrapper = f"<tb:{op}>{inner}</tb:{op}>".encode()
    text = empty.read_bytes()
    assert text.count(wrapper) == 1
    expected = text.replace(wrapper, f"<tb:{op}>{gsoap_item_text(op, 37, 5, serializers)}</tb:{op}>".encode())
    assert full.read_bytes() == expected
    assert r["xml_bytes"] == len(expected) and r["valid"] and r["http_body_is_envelope"]
    assert r["http_bytes"] == r["xml_bytes"] + r["http_header_bytes"] and r["http_header_bytes"] > 100


@pytest.mark.parametrize("impl", ["gsoap", "axis"])
def test_sizes_are_the_same_for_the_same_seed_and_differ_for_another(impl):
    run = gsoap if impl == "gsoap" else axis
    a, b = (run("message", "--op", "sendDoubles", "--n", "500", "--seed", "7", *FAST) for _ in range(2))
    c = run("message", "--op", "sendDoubles", "--n", "500", "--seed", "8", *FAST)
    assert (a["xml_bytes"], a["http_bytes"]) == (b["xml_bytes"], b["http_bytes"])
    assert a["checksum"] == b["checksum"] != c["checksum"]
    assert a["raw_bytes"] == 4000 and a["valid"] and c["valid"]


def test_axis_int_message_holds_exactly_the_contract_ints_in_adb_form(tmp_path):
    full = tmp_path / "full.xml"
    r = axis("message", "--op", "sendInts", "--n", "25", *FAST, "--dump", str(full))
    text = full.read_bytes().decode()
    prefix = text[:text.index(":items>")].rsplit("<", 1)[1]     # the prefix ADB chose (ns1)
    items = "".join(f"<{prefix}:items>{v}</{prefix}:items>" for v in contract.items("int", 25))
    head, tail = text.split(items)                              # exactly once, nothing between
    assert head.endswith(">") and tail.startswith(f"</{prefix}:sendInts>")
    assert r["xml_bytes"] == len(full.read_bytes()) and r["http_bytes"] > r["xml_bytes"]
    assert r["valid"] and r["http_body_is_envelope"] and r["count"] == 25


def test_every_timing_is_positive():
    for run in (gsoap, axis):
        r = run("message", "--op", "sendInts", "--n", "300", "--socket", "1", *FAST)
        for key in ("ser_ns", "deser_ns", "write_ns", "read_ns"):
            assert r[key]["runs"] >= 1 and 0 < r[key]["min"] <= r[key]["median"] <= r[key]["max"], (run, key, r[key])
        w = run("writers", "--n", "2000", *FAST)
        assert w["valid"] and w["itoa_bytes"] < w["bytes"]
        assert all(t["median"] > 0 and t["over_itoa"] > 0 for t in w["ns"].values()), w["ns"]


def test_writers_write_the_same_bytes_as_the_library():
    w = gsoap("writers", "--n", "5000", "--seed", "3", *FAST)
    assert w["valid"] and set(w["ns"]) == {"printf", "gsoap", "tuned", "hand", "itoa"}
    ints = contract.items("int", 5000, 3)
    assert w["bytes"] == sum(len(f"<tb:items>{v}</tb:items>") for v in ints)
    assert w["itoa_bytes"] == sum(len(str(v)) for v in ints)


@pytest.mark.parametrize("client", ["gsoap", "axis"])
@pytest.mark.parametrize("service", ["gsoap", "axis"])
def test_base64_and_mtom_forms_decode_to_the_ints_of_the_array(client, service, gsoap_mtom_server, axis_server):
    endpoint = (gsoap_mtom_server if service == "gsoap" else axis_server).endpoint
    run = gsoap if client == "gsoap" else axis
    want = contract.checksum("int", contract.items("int", 200_000, 9))
    sent = {}
    for form in ("base64", "mtom"):
        r = run("mtom", "--endpoint", endpoint, "--n", "200000", "--seed", "9", "--form", form, "--calls", "1")
        assert r["valid"] and r["expected_checksum"] == r["int_array_checksum"] == want, r
        sent[form] = r["request_bytes"]
    assert sent["mtom"] < 800_000 + 2_000 < sent["base64"]     # raw bytes, not 4/3 of them


def test_transmit_options_all_reach_the_service_with_the_right_checksum(gsoap_pool_server):
    for opts in ([], ["--io", "store"], ["--io", "chunk"], ["--keepalive", "0"], ["--sndbuf", "0"]):
        r = gsoap("transmit", "--endpoint", gsoap_pool_server.endpoint, "--op", "sendInts", "--n", "20000",
                  "--calls", "1", *opts)
        assert r["valid"] and r["call_ns"]["median"] > 0 and r["request_bytes"] > 20000 * 20, (opts, r)


def _post(endpoint: str, op: str, body: bytes) -> str:
    req = urllib.request.Request(endpoint, data=body, headers=contract.soap_headers(op))
    with urllib.request.urlopen(req, timeout=60) as resp:
        return resp.read().decode()


@pytest.mark.parametrize("library", ["gsoap-generated", "gsoap-tuned", "axis"])
def test_both_services_accept_every_message_either_library_generates(library, gsoap_pool_server, axis_server,
                                                                    tmp_path):
    run = gsoap if library.startswith("gsoap") else axis
    variant = ["--serializers", library.split("-")[1]] if library.startswith("gsoap") else []
    for op in OPS:
        dump = tmp_path / f"{op}.xml"
        r = run("message", "--op", op, "--n", "40", "--seed", "3", *variant, *FAST, "--dump", str(dump))
        assert r["valid"]
        kind = contract.KIND_OF[op]
        want = contract.checksum(kind, contract.items(kind, 40, 3))
        for service in (gsoap_pool_server, axis_server):
            answer = _post(service.endpoint, op, Path(dump).read_bytes())
            assert f"checksum>{want}<" in answer and "count>40<" in answer, (library, op, service.endpoint, answer)


def test_a_wrong_operation_is_a_usage_error_naming_the_flag():
    import subprocess
    from testbed.studies import serialization as study
    r = subprocess.run([str(study.CPP), "message", "--op", "ping"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 2 and "--op 'ping'" in r.stderr and "sendInts" in r.stderr
    j = axis("message", "--op", "ping")
    assert j["exit"] == 2 and "--op 'ping'" in j["usage_error"]
