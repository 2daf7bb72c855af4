"""The three interop clients behind one call: the gSOAP CLI, the Axis2 CLI (both speak the
JSON of docs/tiers.md) and zeep, which reads the WSDL the service serves.

The Axis2 CLI runs in its `serve` mode, one JVM per test process for every call (a JVM with
Axis2 costs about a second of CPU to start, and the suites make hundreds of calls); the answer
is the command line's JSON with its exit status. An answer that is not a plain result (a usage
error, a JVM that died or hung) is asked again of a fresh `java -jar` process, whose output and
exit status the test then sees. `process=True` always runs the command line."""
from __future__ import annotations

import atexit
import base64
import json
import subprocess

from stacks import RUN_DIR      # this worker's folder for the logs of the processes tests start
from testbed import contract, tiers
from testbed.studies.runner import PointError
from testbed.studies.jvm_worker import JvmWorker

CLIENTS = ("gsoap", "axis", "zeep")


_AXIS: list[JvmWorker] = []


def _axis_worker() -> JvmWorker:
    if not _AXIS:
        _AXIS.append(JvmWorker(["java", "-jar", str(tiers.CONTRACT_JAR), "serve"],
                               log=RUN_DIR / "axis-client-serve.log"))
        atexit.register(_AXIS[0].stop)
    return _AXIS[0]


def call(client: str, endpoint: str, op: str, n: int = 0, seed: int = 1, process: bool = False, **kw) -> dict:
    if client == "zeep":
        return zeep_call(endpoint, op, n, seed, **kw)
    args = ["--endpoint", endpoint, "--op", op, "--n", str(n), "--seed", str(seed), "--json"]
    for k, v in kw.items():
        args += [f"--{k.replace('_', '-')}", str(v)]
    if client == "axis" and not process:
        try:
            return _axis_worker().ask(args, timeout=180)
        except PointError:
            pass   # asked again of the command line, below: its own output and exit status
    argv = {"gsoap": [str(tiers.GSOAP_CLIENT)],
            "axis": ["java", "-jar", str(tiers.CONTRACT_JAR)]}[client] + args
    r = subprocess.run(argv, capture_output=True, text=True, timeout=180)
    try:
        out = json.loads(r.stdout)
    except json.JSONDecodeError:
        raise AssertionError(f"{client} client printed no JSON (exit {r.returncode}):\n"
                             f"{r.stdout[-2000:]}\n{r.stderr[-2000:]}") from None
    out["exit"] = r.returncode
    return out


_ZEEP = {}


def _zeep_service(endpoint: str):
    import zeep
    from zeep.transports import Transport
    if endpoint not in _ZEEP:
        client = zeep.Client(endpoint + "?wsdl", transport=Transport(timeout=60, operation_timeout=120))
        _ZEEP[endpoint] = client.service
    return _ZEEP[endpoint]


def zeep_call(endpoint: str, op: str, n: int, seed: int, cpu_us: int = 0, wait_us: int = 0) -> dict:
    svc = _zeep_service(endpoint)
    out = {"client": "zeep", "op": op, "n": n, "count": None, "checksum": None,
           "echo_equal": None, "work": None, "exit": 0}
    if op == "ping":
        svc.ping()
    elif op == "work":
        r = svc.work(cpuMicros=cpu_us, waitMicros=wait_us)
        out["work"] = {"implementation": r.implementation, "host": r.host, "pid": r.pid}
    elif op == "sendIntBuffer":
        r = svc.sendIntBuffer(data=contract.int_buffer(contract.items("int", n, seed)))
        out.update(count=r.count, checksum=r.checksum)
    elif op == "echoInts":
        sent = contract.items("int", n, seed)
        r = svc.echoInts(items=sent)
        got = list(r or [])
        out.update(count=len(got), echo_equal=got == sent)
    else:
        kind = contract.KIND_OF[op]
        r = getattr(svc, op)(items=contract.items(kind, n, seed))
        out.update(count=r.count, checksum=r.checksum)
    return out


def expected(op: str, n: int, seed: int = 1) -> tuple[int, int]:
    """(count, checksum) by the Python reference of the contract."""
    kind = contract.KIND_OF[op]
    return n, contract.checksum(kind, contract.items(kind, n, seed))


__all__ = ["CLIENTS", "call", "expected", "base64"]
