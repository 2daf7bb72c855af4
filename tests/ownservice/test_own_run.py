"""Experiments pointed at your own service ([service] or --service): what each experiment becomes —
path 5 through the service, its service-tier scaling left out and said so, the runs' knobs and
Locust's arguments — checked without starting anything (test_own_stack.py runs the stack)."""
from __future__ import annotations

from pathlib import Path

import pytest

from testbed.experiment import definition, ownrun

KNOBS = {"OWN_SERVER": "127.0.0.1:18700", "OWN_ENDPOINT": "/own/", "OWN_WSDL": "/own/?wsdl",
         "OWN_OPERATION": "total", "OWN_TEMPLATE": "/tmp/total.xml"}


def _pointed(name: str, quick: bool = False) -> definition.Experiment:
    exp = definition.load(name, quick=quick)
    exp.service = {"wsdl": "http://127.0.0.1:18700/?wsdl", "n": 3, "params": {}}
    return ownrun.with_service(exp, KNOBS, 7, "total")


def test_segments_call_your_service_on_path_5_and_start_no_contract_service():
    exp = _pointed("segments")
    assert [r.entry for r in exp.runs] == [f"own-path{p}" for p in (5, 1, 2, 3, 4)]     # /seg/5 first: primed
    five = exp.runs[0]
    assert (five.backend, five.op, five.n, five.user_class) == ("own", "total", 7, "Seg5ViaClonesOwn")
    assert five.tiers["axis"] == five.tiers["gsoap"] == 0 and five.label == "total /seg/5"
    assert all(r.stack_knobs()["OWN_SERVER"] == "127.0.0.1:18700" for r in exp.runs)
    assert exp.settings["service"] == "total at 127.0.0.1:18700 (WSDL http://127.0.0.1:18700/?wsdl)"


def test_clones_leave_out_the_service_tier_scaling_and_its_wait_and_say_so():
    exp = _pointed("clones")
    ids = [r.entry for r in exp.runs]
    assert "singleton-c1-a2" not in ids and "singleton-c1-a4" not in ids and "pool-c1-a1" in ids
    assert "not measured: your service is one endpoint" in exp.settings["service tier scaling"]
    assert not any(r.auto_wait or "SERVICE" in r.demands for r in exp.runs)
    assert exp.runs[0].label == "singleton, 1 clone, total"


def test_locust_is_not_asked_for_a_contract_operation_on_your_service(tmp_path):
    from testbed.run.locustrun import master_argv
    own = _pointed("segments", quick=True).runs[0]            # /seg/5
    argv = master_argv(own, tmp_path, "http://127.0.0.1:8080", 0, None, False)
    assert "--op" not in argv and argv[argv.index("--backend") + 1] == "own" and argv[-1] == "Seg5ViaClonesOwn"
    axis = definition.load("segments", quick=True).runs[0]
    assert "--op" in master_argv(axis, tmp_path, "http://127.0.0.1:8080", 0, None, False)


@pytest.mark.parametrize("table, said", [
    ('service = "http://x/?wsdl"', "must be a table"),
    ("[service]\noperation = \"total\"", "wsdl = "),
    ("[service]\nwsdl = \"http://x/?wsdl\"\nport = 1", "port"),
    ("[service]\nwsdl = \"http://x/?wsdl\"\nn = -1", "n"),
    ("[service]\nwsdl = \"http://x/?wsdl\"\nparams = [1]", "params must be a table"),
])
def test_a_service_table_of_the_wrong_shape_is_refused_by_name(tmp_path, table, said):
    text = (definition.EXPERIMENTS_DIR / "segments.toml").read_text()
    path = tmp_path / "mine.toml"
    path.write_text(table + "\n" + text if table.startswith("service") else text + "\n" + table + "\n")
    with pytest.raises(definition.DefinitionError, match=said):
        definition.load(str(path))


def test_a_service_table_is_read_with_its_defaults(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text((definition.EXPERIMENTS_DIR / "segments.toml").read_text()
                    + '\n[service]\nwsdl = "http://127.0.0.1:18700/?wsdl"\nparams = { why = 1 }\n')
    exp = definition.load(str(path))
    assert exp.service == {"wsdl": "http://127.0.0.1:18700/?wsdl", "n": 3, "params": {"why": "1"}}
    assert Path(exp.source) == path


@pytest.mark.parametrize("argv, said", [
    (["up", "--operation", "total"], "give its WSDL with --service URL"),
    (["run", "segments", "--payload", "x.xml"], "give its WSDL with --service URL"),
    (["run", "segments", "--quick", "--service", "http://127.0.0.1:9/?wsdl"], "your service: "),
])
def test_the_service_options_are_refused_with_the_fix_before_anything_starts(argv, said):
    import subprocess
    from testbed import ROOT
    r = subprocess.run([str(ROOT / "testbed"), *argv], capture_output=True, text=True, timeout=120,
                       env={**__import__("os").environ, "TESTBED_STATE_DIR": "/tmp/testbed-own-cli-state"})
    assert r.returncode == 2, r.stdout + r.stderr
    assert said in r.stderr, r.stderr
