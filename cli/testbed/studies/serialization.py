"""The serialization study (docs/method.md, "Serialization cost"; docs/serialization.md): what XML
costs for arrays sent as SOAP parameters, with gSOAP's generated code (C++: build/studies/
serialization/tb-serialization), the gSOAP service's tuned serializers (the same program,
--serializers tuned: services/gsoap/custom) and Axis2/ADB's (Java: studies/serialization/
target/serialization-study.jar, one JVM kept running in `serve` mode so the JIT stays warm).
The implementations ("impls"): gsoap (generated), gsoap-tuned, axis.

Points, each measured `repeat` times (analysis/studies/serialization.py reads them):
  message   one request of op with n seeded items: exact sizes (items, XML envelope,
            whole HTTP request as the generated client sends it) and in-process
            serialization / deserialization times (count and checksum checked); some also
            the whole write to / read from a loopback socket
              classic  sendBytes/Ints/Floats/Doubles of equal raw size (raw_sizes)
              buffer   sendInts vs sendIntBuffer (base64) for buffer_counts ints
              fd       sendFloats vs sendDoubles for float_counts items
  writers   writer_n ints: printf-style, the library's writer(s: gSOAP's generated and
            tuned), hand-written, raw itoa (gsoap and axis)
  transmit  gSOAP client -> gSOAP service (started here, one per gSOAP impl, with the same
            serializers as the client), sendInts of transmit_sizes, one transmit option
            changed at a time from gSOAP's defaults
  mtom      sendIntBuffer as base64 in the body vs an MTOM/XOP attachment, each client to
            its own service (started here), mtom_counts ints (gsoap and axis: base64 is not
            an array, the tuned serializers change nothing there)
"""
from __future__ import annotations

from pathlib import Path

from testbed import ROOT, procs, tiers
from testbed.studies.runner import Point, PointError, StudyError, whole, wholes
from testbed.studies.jvm_worker import JvmWorker

CPP = ROOT / "build" / "studies" / "serialization" / "tb-serialization"
JAR = ROOT / "studies" / "serialization" / "target" / "serialization-study.jar"
# 9 MiB of sendBytes as ADB beans: 9.4 M UnsignedByte objects, twice, and the XML: 3 GiB was too little
JVM = ["java", "-Xms512m", "-Xmx6g", "-XX:+UseParallelGC", "-XX:+ExitOnOutOfMemoryError"]
ITEM_BYTES = {"sendBytes": 1, "sendInts": 4, "sendFloats": 4, "sendDoubles": 8, "sendIntBuffer": 4}
ARRAY_OPS = ("sendBytes", "sendInts", "sendFloats", "sendDoubles")
IMPLS = ("gsoap", "gsoap-tuned", "axis")
GSOAP_IMPLS = {"gsoap": "generated", "gsoap-tuned": "tuned"}   # impl -> --serializers
# one transmit option changed at a time from gSOAP's client defaults (cpp/cmd_transmit.cpp)
TRANSMIT = {
    "length": [],                                   # counting pass + Content-Length, keep-alive
    "store": ["--io", "store"],                     # message stored, then Content-Length
    "chunk": ["--io", "chunk"],                     # HTTP/1.1 chunked, one pass
    "close": ["--keepalive", "0"],                  # a new connection every call
    "kernel-buffers": ["--sndbuf", "0", "--rcvbuf", "0"],   # kernel autotuning, not 64 KiB
    "4m-buffers": ["--sndbuf", "4194304", "--rcvbuf", "4194304"],
}
SERVICE_MAX_BYTES = 512 << 20   # the study's own services take 9 MiB of bytes as XML (~230 MB)

PARAMS = {
    "repeat": 3,
    "seed": 1,
    "impls": list(IMPLS),
    "raw_sizes": [1024, 1 << 20, 5 << 20, 9 << 20],          # the classic sizes (docs/method.md, "The classic figures")
    "types": list(ARRAY_OPS),
    "buffer_counts": [1000, 10000, 100000, 1000000],
    "float_counts": [10, 100, 1000, 10000, 100000, 500000],
    "socket_sizes": [1024, 1 << 20],      # classic points that also time the loopback write/read
    "writer_n": 1000000,
    "transmit_sizes": [1 << 20, 9 << 20],
    "transmit_options": list(TRANSMIT),
    "transmit_calls": 1,                  # timed calls per measurement, after one warm-up call
    "mtom_counts": [1000, 100000, 1000000],
    "min_runs": 3,                        # timed runs per measurement (small messages)
    "min_seconds": 0.2,                   # ... and at least this long
    "large_bytes": 512 << 10,             # raw size above which a measurement is one run
    "jit_seconds": 1.0,                   # JVM: JIT warm-up on the same operation first
}
LISTS = ("impls", "raw_sizes", "types", "buffer_counts", "float_counts", "socket_sizes",
         "transmit_sizes", "transmit_options", "mtom_counts")


def check(p: dict) -> None:
    for key in LISTS:
        if not isinstance(p[key], list):
            raise StudyError(f"{key} must be a list (got {p[key]!r})")
    bad = [i for i in p["impls"] if i not in IMPLS]
    if bad or not p["impls"]:
        raise StudyError(f"impls: {bad or 'empty'}; choose from {', '.join(IMPLS)}")
    bad = [t for t in p["types"] if t not in ARRAY_OPS]
    if bad:
        raise StudyError(f"types: unknown {bad}; choose from {', '.join(ARRAY_OPS)}")
    bad = [o for o in p["transmit_options"] if o not in TRANSMIT]
    if bad:
        raise StudyError(f"transmit_options: unknown {bad}; choose from {', '.join(TRANSMIT)}")
    for key in ("raw_sizes", "buffer_counts", "float_counts", "socket_sizes", "transmit_sizes",
                "mtom_counts"):
        wholes(p, key, 1, 100_000_000, empty=True)
    for key, lo, hi in (("writer_n", 0, 100_000_000), ("min_runs", 1, 10000), ("transmit_calls", 1, 1000),
                        ("large_bytes", 1, 1 << 40), ("seed", 0, (1 << 64) - 1)):
        whole(p, key, lo, hi)
    for key in ("min_seconds", "jit_seconds"):
        if not isinstance(p[key], (int, float)) or not 0 <= p[key] <= 60:
            raise StudyError(f"{key} must be seconds 0..60 (got {p[key]!r})")


def _message_points(p: dict) -> list[Point]:
    """One point per (impl, op, n), whatever groups want it."""
    wanted: dict[tuple, dict] = {}

    def want(impl: str, op: str, n: int, group: str, raw: int | None = None, socket: bool = False):
        key = (impl, op, n)
        d = wanted.setdefault(key, {"impl": impl, "op": op, "n": n, "groups": [], "raw_size": None,
                                    "socket": False})
        d["groups"].append(group)
        d["raw_size"] = d["raw_size"] or raw
        d["socket"] = d["socket"] or socket
    for impl in p["impls"]:
        for raw in p["raw_sizes"]:
            for op in p["types"]:
                want(impl, op, raw // ITEM_BYTES[op], "classic", raw, raw in p["socket_sizes"])
        for n in p["buffer_counts"]:
            want(impl, "sendInts", n, "buffer")
            want(impl, "sendIntBuffer", n, "buffer")
        for n in p["float_counts"]:
            want(impl, "sendFloats", n, "fd")
            want(impl, "sendDoubles", n, "fd")
    out = []
    for (impl, op, n), d in wanted.items():
        raw = n * ITEM_BYTES[op]
        out.append(Point(f"msg-{impl}-{op}-{n}", f"{impl} {op} n={n:,}", {"kind": "message", **d},
                         timeout_s=120 + raw * 40e-6 * (4 if raw <= p["large_bytes"] else 1)))
    return out


def points(p: dict) -> list[Point]:
    pts = _message_points(p)
    if p["writer_n"]:   # gSOAP's program writes with both of its writers
        pts += [Point(f"writers-{impl}", f"{impl} writers n={p['writer_n']:,}",
                      {"kind": "writers", "impl": impl, "n": p["writer_n"]},
                      timeout_s=120 + p["writer_n"] * 40e-6)
                for impl in ("gsoap", "axis") if impl in p["impls"]
                or (impl == "gsoap" and "gsoap-tuned" in p["impls"])]
    for impl in GSOAP_IMPLS:
        if impl not in p["impls"]:
            continue
        tag = "" if impl == "gsoap" else "tuned-"
        for raw in p["transmit_sizes"]:
            for opt in p["transmit_options"]:
                pts.append(Point(f"tx-{tag}{opt}-{raw}", f"transmit {impl} {opt} {raw >> 10:,} KiB",
                                 {"kind": "transmit", "impl": impl, "option": opt, "op": "sendInts",
                                  "n": raw // 4, "raw_size": raw},
                                 timeout_s=120 + raw * 60e-6 * (p["transmit_calls"] + 1)))
    for impl in ("gsoap", "axis"):
        if impl not in p["impls"]:
            continue
        for n in p["mtom_counts"]:
            for form in ("base64", "mtom"):
                pts.append(Point(f"mtom-{impl}-{form}-{n}", f"{impl} {form} n={n:,}",
                                 {"kind": "mtom", "impl": impl, "form": form, "n": n},
                                 timeout_s=120 + n * 60e-6 * (p["transmit_calls"] + 1)))
    return pts


def _timing_args(p: dict, raw: int) -> list[str]:
    if raw > p["large_bytes"]:   # seconds per run: one run, no warm-up (JVM: its JIT warm-up only)
        return ["--warmup", "0", "--min-runs", "1", "--min-seconds", "0"]
    return ["--warmup", "1", "--min-runs", str(p["min_runs"]), "--min-seconds", str(p["min_seconds"])]


def prepare(ctx) -> None:
    p = ctx.params
    need = [CPP] + ([JAR] if "axis" in p["impls"] else [])
    missing = [str(x.relative_to(ROOT)) for x in need if not x.exists()]
    if missing:
        raise StudyError(f"not built: {', '.join(missing)}; run ./testbed build")
    ctx.facts["programs"] = {"gsoap": f"{CPP.relative_to(ROOT)} --serializers generated",
                             "gsoap-tuned": f"{CPP.relative_to(ROOT)} --serializers tuned",
                             "axis": str(JAR.relative_to(ROOT))}
    ctx.facts["jvm"] = " ".join(JVM)
    ctx.state = {"servers": {}, "jvm": None}
    services = {pt.params["impl"] for pt in points(p) if pt.params["kind"] in ("transmit", "mtom")}
    for name in sorted(services):
        ctx.state["servers"][name] = _start_service(ctx, name)
    if "axis" in p["impls"]:
        ctx.state["jvm"] = JvmWorker([*JVM, "-jar", str(JAR), "serve"], log=ctx.folder / "raw" / "jvm.log")
    ctx.facts["services"] = {k: f"{v.endpoint} (pid {v.proc.pid})" for k, v in ctx.state["servers"].items()}


class _Service:
    def __init__(self, proc: procs.Proc, endpoint: str):
        self.proc, self.endpoint = proc, endpoint


def _start_service(ctx, name: str) -> _Service:
    """A private instance of a tier on a free loopback port, limits raised for 9 MiB messages;
    name: an impl (gsoap, gsoap-tuned: the gsoap tier with those serializers; axis)."""
    tier = tiers.TIERS["gsoap" if name in GSOAP_IMPLS else name]
    if not tier.built():
        raise StudyError(f"the {name} service is not built; run ./testbed build")
    port = procs.free_port()
    extra = {"MAX_MESSAGE_BYTES": str(SERVICE_MAX_BYTES), "MAX_XML_OCCURS": str(20_000_000)}
    if name in GSOAP_IMPLS:
        # MTOM is off in the stack's gSOAP service (415: gSOAP's MIME parser and hostile input,
        # docs/fuzzing.md); this private service takes only the study's own requests
        extra.update(GSOAP_SERVER_MODEL="pool", GSOAP_RECV_TIMEOUT_S="300", GSOAP_SEND_TIMEOUT_S="300",
                     GSOAP_ACCEPT_MTOM="1", GSOAP_SERIALIZERS=GSOAP_IMPLS[name])
    proc = procs.start(f"serialization-{name}", tier.argv(), ctx.folder / "raw" / f"{name}.log",
                       env=tiers.process_env(tier, port, extra=extra), port=port)
    try:
        procs.wait_healthy(proc, f"http://127.0.0.1:{port}{tier.health_path}", tier.start_timeout)
    except procs.ProcError as e:
        procs.stop(proc)
        raise StudyError(str(e)) from None
    ctx.say(f"  {name} service for the study on port {port}")
    return _Service(proc, f"http://127.0.0.1:{port}/{tier.name}")


def measure(ctx, point: Point, rep: int) -> dict:
    p, q = ctx.params, point.params
    seed = ["--seed", str(p["seed"])]
    kind = q["kind"]
    if kind == "message":
        raw = q["n"] * ITEM_BYTES[q["op"]]
        args = ["message", "--op", q["op"], "--n", str(q["n"]), *seed, *_timing_args(p, raw)]
        args += ["--socket", "1"] if q["socket"] else []
        return _run(ctx, q["impl"], args, point.timeout_s)
    if kind == "writers":
        args = ["writers", "--n", str(q["n"]), *seed, *_timing_args(p, 0)]
        return _run(ctx, q["impl"], args, point.timeout_s)
    if kind == "transmit":
        impl = q.get("impl", "gsoap")
        args = ["transmit", "--endpoint", _endpoint(ctx, impl), "--op", q["op"], "--n", str(q["n"]),
                *seed, *TRANSMIT[q["option"]], "--calls", str(p["transmit_calls"])]
        return _run(ctx, impl, args, point.timeout_s)
    args = ["mtom", "--endpoint", _endpoint(ctx, q["impl"]), "--n", str(q["n"]), "--form", q["form"],
            *seed, "--calls", str(p["transmit_calls"])]
    return _run(ctx, q["impl"], args, point.timeout_s)


def _endpoint(ctx, name: str) -> str:
    svc = ctx.state["servers"].get(name)
    if svc is None or not svc.proc.alive():
        raise PointError(f"the study's {name} service is not running; see {ctx.folder / 'raw' / (name + '.log')}")
    return svc.endpoint


def _run(ctx, impl: str, args: list[str], timeout: float) -> dict:
    if impl in GSOAP_IMPLS:
        try:
            return ctx.run_json([str(CPP), *args, "--serializers", GSOAP_IMPLS[impl]], timeout=timeout)
        except PointError as e:   # exit 1: a check failed, the JSON says which
            if " exited 1" in str(e):
                return {"valid": False, "invalid_reason": str(e)}
            raise
    jit = ["--jit-seconds", str(ctx.params["jit_seconds"])]
    return ctx.state["jvm"].ask([*args, *jit], timeout=timeout)


def cleanup(ctx) -> None:
    state = getattr(ctx, "state", None) or {}
    if state.get("jvm"):
        state["jvm"].stop()
    for svc in state.get("servers", {}).values():
        procs.stop(svc.proc)


def describe(d: dict) -> str:
    ms = lambda key: (d.get(key) or {}).get("median", 0) / 1e6  # noqa: E731
    if d.get("command") == "message":
        return (f"xml {d['xml_bytes']:,} B, http {d['http_bytes']:,} B, ser {ms('ser_ns'):.3g} ms, "
                f"deser {ms('deser_ns'):.3g} ms")
    if d.get("command") == "writers":
        return ", ".join(f"{k} {v['median'] / 1e6:.3g} ms" for k, v in d["ns"].items())
    return f"{d.get('request_bytes', 0):,} B sent, call {ms('call_ns'):.3g} ms"
