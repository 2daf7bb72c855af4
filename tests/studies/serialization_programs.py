"""Helpers of the serialization study's tests: run its two programs (built by ./testbed build)
the way the study does, and the exact XML text of seeded items as gSOAP formats them."""
from __future__ import annotations

import base64
import json
import math
import subprocess

import numpy
import pytest

from testbed import contract
from testbed.studies import serialization as study

FAST = ["--min-runs", "1", "--min-seconds", "0"]


def gsoap(*args: str, check: bool = True) -> dict:
    if not study.CPP.exists():
        pytest.fail(f"{study.CPP} is not built; run ./testbed build")
    r = subprocess.run([str(study.CPP), *args], capture_output=True, text=True, timeout=300)
    if check and r.returncode != 0:
        pytest.fail(f"tb-serialization {' '.join(args)} exited {r.returncode}: {r.stderr or r.stdout}")
    return {**json.loads(r.stdout.strip().splitlines()[-1]), "exit": r.returncode}


def axis(*args: str) -> dict:
    if not study.JAR.exists():
        pytest.fail(f"{study.JAR} is not built; run ./testbed build")
    r = subprocess.run([*study.JVM, "-jar", str(study.JAR), *args, "--jit-seconds", "0"],
                       capture_output=True, text=True, timeout=300)
    return {**json.loads(r.stdout.strip().splitlines()[-1]), "exit": r.returncode}


def shortest(x) -> str:
    """A numpy float32/float64 as std::to_chars writes it without a format: the shortest text
    that reads back to the same value, fixed or scientific (e+NN), whichever is shorter
    (fixed on a tie)."""
    fixed = numpy.format_float_positional(x, unique=True, trim="-")
    sci = numpy.format_float_scientific(x, unique=True, trim="-", exp_digits=2)
    return fixed if len(fixed) <= len(sci) else sci


def gsoap_item_text(op: str, n: int, seed: int, serializers: str = "generated") -> str:
    """The items of the request body exactly as gSOAP writes them: decimal ints and bytes;
    floats with %.9G and doubles with %.17G (generated serializers) or in their shortest
    round-trip form (tuned); the int buffer as one base64 value."""
    if op == "sendIntBuffer":
        data = base64.b64encode(contract.int_buffer(contract.items("int", n, seed))).decode()
        assert len(data) == 4 * math.ceil(4 * n / 3)
        return f"<tb:data>{data}</tb:data>"
    kind = contract.KIND_OF[op]
    values = contract.items(kind, n, seed)
    if serializers == "tuned" and kind in ("float", "double"):
        real = numpy.float32 if kind == "float" else numpy.float64
        return "".join(f"<tb:items>{shortest(real(v))}</tb:items>" for v in values)
    fmt = {"byte": "%d", "int": "%d", "float": "%.9G", "double": "%.17G"}[kind]
    return "".join(f"<tb:items>{fmt % v}</tb:items>" for v in values)
