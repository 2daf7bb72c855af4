"""The gSOAP client's seeded payloads are the contract's: its --dry-run count and checksum
(and canonical bytes for small n) equal tests/contract/vectors.json and the Python
reference, for every item kind, size and seed."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from gsoap.gsoap_http import client
from testbed import contract

VECTORS = json.loads((Path(__file__).resolve().parents[1] / "contract" / "vectors.json").read_text())
OPS_OF_KIND = {"byte": ["sendBytes"], "int": ["sendInts", "sendIntBuffer", "echoInts"],
               "float": ["sendFloats"], "double": ["sendDoubles"]}
CASES = [(op, case) for case in VECTORS["cases"] for op in OPS_OF_KIND[case["kind"]]]


def dry_run(op: str, n: int, seed: int) -> dict:
    rc, out, err = client("--dry-run", "--op", op, "--n", str(n), "--seed", str(seed), "--json")
    assert rc == 0 and out is not None, err
    return out


@pytest.mark.parametrize("op,case", CASES,
                         ids=[f"{op}-n{c['n']}-seed{c.get('seed', VECTORS['seed'])}" for op, c in CASES])
def test_dry_run_checksum_equals_the_contract_vector(op, case):
    seed = case.get("seed", VECTORS["seed"])
    out = dry_run(op, case["n"], seed)
    assert (out["kind"], out["count"], out["checksum"]) == (case["kind"], case["n"], case["checksum"])
    if "items_hex" in case:
        assert out["items_hex"] == case["items_hex"]


@pytest.mark.parametrize("op", ["sendBytes", "sendInts", "sendFloats", "sendDoubles"])
@pytest.mark.parametrize("n,seed", [(100000, 7), (3, 2**63 + 5)])
def test_dry_run_checksum_equals_the_python_reference(op, n, seed):
    kind = contract.KIND_OF[op]
    out = dry_run(op, n, seed)
    assert out["checksum"] == contract.checksum(kind, contract.items(kind, n, seed))


def test_int_buffer_payload_has_the_int_array_checksum():
    assert dry_run("sendIntBuffer", 1000, 9)["checksum"] == dry_run("sendInts", 1000, 9)["checksum"]
