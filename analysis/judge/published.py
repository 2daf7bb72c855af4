"""The published figures, read from analysis/judge/published.toml: the one place they are written.

Each study has an accessor returning a frozen record of its figures, and its source (the
published study's title as found, or what is known of it when the title is not):

    from analysis.judge import published
    published.classic().paths[5]          # 7.4: path ①-⑤'s maximum, requests/s
    published.rpc().null_rpc_us["tcp"]    # 202.0
    published.source("servers").cite()    # the title, its authors and where it appeared

Findings format their "published" text from these records (the `*_text` methods), so a
figure is typed once, in the data file; method_tables.py prints them as docs/method.md's tables.
"""
from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).with_name("published.toml")
STUDIES = ("classic", "serialization", "rpc", "ipc", "servers", "prediction")


@functools.cache
def data() -> dict:
    """The whole file, as tomllib reads it."""
    with DATA.open("rb") as f:
        return tomllib.load(f)


def _ints(table: dict) -> dict[int, float]:
    """A table whose keys are numbers ([classic.paths] 1 = 812) with integer keys, in order."""
    return {int(k): v for k, v in sorted(table.items(), key=lambda kv: int(kv[0]))}


def num(x: float) -> str:
    """A figure as the findings print it: 812, 7.4, 37,972, 16,327,041, 12."""
    if isinstance(x, int) or float(x).is_integer():
        return f"{int(x):,}"
    return f"{x:,g}"


def span(pair, unit: str = "") -> str:
    """[4.5, 4.9] -> '4.5–4.9' (with a unit: '4.5–4.9 s')."""
    return f"{num(pair[0])}–{num(pair[1])}" + (f" {unit}" if unit else "")


# ------------------------------------------------------------------------------ sources
@dataclass(frozen=True)
class Source:
    study: str
    title: str
    authors: str
    published: str
    where: str
    known_as: str
    setting: str
    method: str                 # the anchor of its section in docs/method.md
    identified_by: str = ""
    note: str = ""

    def cite(self) -> str:
        """The study as a reader can look it up, or plainly what is known of it."""
        if not self.title:
            return f"title not given; known as {self.known_as}"
        who = "; ".join(x for x in (self.authors, self.published) if x)
        return f"“{self.title}”" + (f" ({who})" if who else "") + (f", {self.where}" if self.where else "")


def source(study: str) -> Source:
    s = data()[study]["source"]
    return Source(study=study, **s)


# ------------------------------------------------------------------------------ classic
@dataclass(frozen=True)
class Classic:
    """The diagnosis of a WAS/Axis system: segment tests and clone scaling."""
    paths: dict[int, float]            # T(1..k), requests/s
    segments: dict[int, float]         # T(k) by the segment law
    slips: dict[str, float]
    critical_users: float              # the capacity example: N = N* + X·Z
    capacity_throughput: float
    think_time_s: float
    capacity_users: float
    singleton: dict[int, float]        # the singleton client on 1, 2, 4 clones
    request: dict[int, float]          # a client per request on 1, 4 clones
    service_tier: str
    fix: float

    def capacity_text(self) -> str:
        return (f"N = {num(self.critical_users)} + {num(self.capacity_throughput)} × {num(self.think_time_s)} "
                f"= {num(self.capacity_users)} users")

    def as_dict(self) -> dict:
        """The shape analysis.judge.classic.PUBLISHED has always had (cli/testbed/fit/profile.py reads it)."""
        return {"paths": dict(self.paths), "segments": dict(self.segments), "capacity": self.capacity_text(),
                "singleton_clones": dict(self.singleton), "request": dict(self.request), "fix": self.fix}

    # the findings' "published" texts
    def segment5_text(self) -> str:
        p = self.paths
        return f"T(1..4) {num(p[4])} → T(1..5) {num(p[5])} tps ({1 - p[5] / p[4]:.0%})".replace("%", " %")

    def jsp_text(self) -> str:
        return f"{num(self.paths[1])} vs {num(self.paths[2])} tps (T(2) ≈ {num(self.segments[2])}, within noise)"

    def segment_text(self, k: int) -> str:
        return f"T({k}) ≈ {num(self.segments[k])}/s"

    def client_tier_text(self, ratios: bool = True) -> str:
        s = self.singleton
        text = f"{num(s[1])} → {num(s[2])} → {num(s[4])} tps"
        return text + (f" (×2: {s[2] / s[1]:.2f}, ×4: {s[4] / s[1]:.2f})" if ratios else "")

    def singleton_text(self) -> str:
        return f"plateau at {num(self.singleton[1])} tps, CPU far from 100 %"

    def request_text(self) -> str:
        r, s = self.request[1], self.singleton[1]
        return f"{num(r)} vs {num(s)} tps on 1 clone ({r / s:.2f}×)"

    def fix_text(self) -> str:
        return f"about {num(self.fix)} vs {num(self.singleton[1])} tps ({self.fix / self.singleton[1]:.1f}×)"


@functools.cache
def classic() -> Classic:
    d = data()["classic"]
    c, cl = d["capacity"], d["clones"]
    return Classic(paths=_ints(d["paths"]), segments=_ints(d["segments"]), slips=dict(d["slips"]),
                   critical_users=c["critical_users"], capacity_throughput=c["throughput"],
                   think_time_s=c["think_time_s"], capacity_users=c["users"],
                   singleton=_ints(cl["singleton"]), request=_ints(cl["request"]),
                   service_tier=cl["service_tier"], fix=cl["fix"])


# ------------------------------------------------------------------------------ serialization
TYPE_OPS = {"char": "sendBytes", "int": "sendInts", "float": "sendFloats", "double": "sendDoubles"}


@dataclass(frozen=True)
class Serialization:
    """gSOAP's cost for arrays as SOAP request parameters; keyed by the contract's operations
    (sendBytes is the study's char array)."""
    raw_sizes: list[int]
    message_bytes: dict[str, list[int]]           # op -> bytes per raw size
    int_array_vs_buffer: dict[int, tuple[int, int]]
    double_over_float_bytes: dict[int, float]
    write_9mib_ms: dict[str, float]
    read_9mib_ms: dict[str, float]
    ints_1e6_us: dict[str, float]
    ser_over_deser_int_arrays: tuple[float, float]
    ser_vs_int_1e5: dict[str, float]              # op -> ratio
    proposals: list[str]
    earlier: dict

    def overhead_pct(self, op: str, raw: int) -> float | None:
        """(xml − raw)/raw·100 from the published bytes; None for a size it did not publish."""
        if raw not in self.raw_sizes:
            return None
        return (self.message_bytes[op][self.raw_sizes.index(raw)] - raw) / raw * 100

    def array_vs_buffer_text(self) -> str:
        (n1, (a1, b1)), (n2, (a2, b2)) = list(self.int_array_vs_buffer.items())[0], list(self.int_array_vs_buffer.items())[-1]
        ratios = sorted(a / b for a, b in self.int_array_vs_buffer.values())
        per_int = b2 / n2
        return (f"10{_sup(n1)} ints: {num(a1)} vs {num(b1)} B; 10{_sup(n2)}: {num(a2)} vs {num(b2)} B "
                f"({ratios[0]:.2f}–{ratios[-1]:.2f}×); the published buffer is {per_int:.1f} B per int, base64 of "
                f"about {per_int * 3 / 4:.1f} B per int: decimal text, not 4-byte ints")

    def ser_vs_deser_text(self) -> str:
        u = self.ints_1e6_us
        return (f"ser/deser {span(self.ser_over_deser_int_arrays)} for int arrays, falling with size; 10⁶ ints: "
                f"{num(u['ser_array'])} µs vs {num(u['deser_array'])} µs")

    def vs_int_text(self, double_over_float: bool = False) -> str:
        f, d = self.ser_vs_int_1e5["sendFloats"], self.ser_vs_int_1e5["sendDoubles"]
        return ((f"serialization vs int at 10⁵ elements: float {num(f)}×, double {num(d)}× (double/float {d / f:.2f}×)")
                if double_over_float else f"serialization time vs int at 10⁵ elements: float {num(f)}×, double {num(d)}×")

    def earlier_writer_text(self) -> str:
        return (f"the classic study proposed a hand-written writer; gSOAP's generated writer was "
                f"{num(self.earlier['generated_writer_over_itoa'])}× itoa in this project's earlier run")

    def earlier_axis_text(self) -> str:
        m = self.earlier["ser_1mib_ms"]
        return (f"this project's earlier run, generated gSOAP: 1 MiB floats serialized in {num(m['gsoap_floats'])} ms "
                f"vs Axis2's {num(m['axis_floats'])} ms, doubles {num(m['gsoap_doubles'])} vs {num(m['axis_doubles'])} ms")


def _sup(n: int) -> str:
    """1000 -> '³' (the exponent of a power of ten, superscript)."""
    return str(len(str(n)) - 1).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))


@functools.cache
def serialization() -> Serialization:
    d = data()["serialization"]
    by_op = lambda t: {TYPE_OPS[k]: v for k, v in t.items()}    # noqa: E731
    return Serialization(raw_sizes=list(d["raw_sizes"]), message_bytes=by_op(d["message_bytes"]),
                         int_array_vs_buffer={k: tuple(v) for k, v in _ints(d["int_array_vs_buffer"]).items()},
                         double_over_float_bytes=_ints(d["double_over_float_bytes"]),
                         write_9mib_ms=by_op(d["write_9mib_ms"]), read_9mib_ms=by_op(d["read_9mib_ms"]),
                         ints_1e6_us=dict(d["ints_1e6_us"]),
                         ser_over_deser_int_arrays=tuple(d["ser_over_deser_int_arrays"]),
                         ser_vs_int_1e5=by_op(d["ser_vs_int_1e5"]), proposals=list(d["proposals"]),
                         earlier=dict(d["earlier_run"]))


# ------------------------------------------------------------------------------ rpc
@dataclass(frozen=True)
class Rpc:
    raw_half_rtt_us: dict[str, float]     # tcp, socket_over_via, native_via
    null_rpc_us: dict[str, float]         # tcp, user_level
    null_split_us: dict[str, float]       # client, communication, server
    null_bytes: dict[str, int]            # sent, received
    speedup: dict                         # "small", 4096

    def raw_text(self) -> str:
        r = self.raw_half_rtt_us
        return (f"TCP over Fast Ethernet {num(r['tcp'])} µs, socket-over-VIA {num(r['socket_over_via'])} µs "
                f"({r['tcp'] / r['socket_over_via']:.1f}×), native VIA {num(r['native_via'])} µs")

    def null_text(self) -> str:
        n = self.null_rpc_us
        return f"{num(n['tcp'])} µs over TCP vs {num(n['user_level'])} µs over the user-level transport ({n['tcp'] / n['user_level']:.1f}×)"

    def speedup_text(self) -> str:
        return f"≈ {num(self.speedup['small'])}× at small arguments, ≈ {num(self.speedup[4096])}× at 4 KiB"

    def layer_text(self) -> str:
        n, r = self.null_rpc_us, self.raw_half_rtt_us
        tcp, user = n["tcp"] - 2 * r["tcp"], n["user_level"] - 2 * r["socket_over_via"]
        return (f"null RPC − raw 4-byte round trip: TCP {num(n['tcp'])} − 2×{num(r['tcp'])} = {num(round(tcp, 1))} µs "
                f"({tcp / n['tcp']:.0%} of the call), user-level {num(n['user_level'])} − 2×{num(r['socket_over_via'])} = "
                f"{num(round(user, 1))} µs ({user / n['user_level']:.0%})").replace("%", " %")

    def split_text(self) -> str:
        s, total = self.null_split_us, self.null_rpc_us["user_level"]
        return (f"client {num(s['client'])} µs, communication {num(s['communication'])} µs, server {num(s['server'])} µs "
                f"of {num(total)} µs ({s['communication'] / total:.0%} communication)").replace("%", " %")

    def bytes_text(self) -> str:
        return f"{self.null_bytes['sent']} bytes sent, {self.null_bytes['received']} received"


@functools.cache
def rpc() -> Rpc:
    d = data()["rpc"]
    sp = {("small" if k == "small" else int(k)): v for k, v in d["speedup"].items()}
    return Rpc(raw_half_rtt_us=dict(d["raw_half_rtt_us"]), null_rpc_us=dict(d["null_rpc_us"]),
               null_split_us=dict(d["null_split_us"]), null_bytes=dict(d["null_bytes"]), speedup=sp)


# ------------------------------------------------------------------------------ ipc
@dataclass(frozen=True)
class Ipc:
    transfer_bytes: int
    runs: int
    rate_floor: int
    conclusion: str
    real_s: dict[int, dict[str, tuple[float, float]]]   # size -> {"socket", "others"} -> [low, high]

    @property
    def sizes(self) -> list[int]:
        return sorted(self.real_s)

    def floor_text(self) -> str:
        return f"{self.rate_floor:,}".replace(",", " ")

    def ratio(self, size: int) -> tuple[float, float]:
        """The socket's real time over the others', least and most."""
        s, o = self.real_s[size]["socket"], self.real_s[size]["others"]
        return s[0] / o[1], s[1] / o[0]

    def same_speed_text(self) -> str:
        small, large = self.sizes[0], self.sizes[-1]
        return (f"{small} B: {span(self.real_s[small]['others'], 's')}; {large} B: {span(self.real_s[large]['others'], 's')} "
                f"(the two faster mechanisms, {self.transfer_bytes / 1e6:g} MB)")

    def socket_slower_text(self) -> str:
        small = self.sizes[0]
        lo, hi = self.ratio(small)
        return f"{span(self.real_s[small]['socket'], 's')} vs {span(self.real_s[small]['others'], 's')} (×{lo:.2f}–{hi:.2f})"

    def gap_text(self) -> str:
        small, large = self.sizes[0], self.sizes[-1]

        def gap(size):
            s, o = self.real_s[size]["socket"], self.real_s[size]["others"]
            return s[0] - o[1], s[1] - o[0]
        (a, b), (c, d) = gap(small), gap(large)
        (r1, r2), (r3, r4) = self.ratio(small), self.ratio(large)
        return (f"gap {a:.1f}–{b:.1f} s at {small} B, {c:.2f}–{d:.2f} s at {large} B; as a ratio ×{r1:.2f}–{r2:.2f} "
                f"→ ×{r3:.2f}–{r4:.2f}")

    def floor_finding_text(self) -> str:
        small, large = self.sizes[0], self.sizes[-1]
        n_small, n_large = self.transfer_bytes / small, self.transfer_bytes / large
        return (f"every mechanism above ~{self.floor_text()}/s (slowest: {n_small / 1e6:.2f} M messages of {small} B in "
                f"≤ {num(self.real_s[small]['socket'][1])} s, {f'{round(n_large, -3):,.0f}'.replace(',', ' ')} of {large} B in ≤ "
                f"{num(self.real_s[large]['socket'][1])} s)")


@functools.cache
def ipc() -> Ipc:
    d = data()["ipc"]
    return Ipc(transfer_bytes=d["transfer_bytes"], runs=d["runs"], rate_floor=d["rate_floor"],
               conclusion=d["conclusion"],
               real_s={int(k): {m: tuple(v) for m, v in t.items()} for k, t in d["real_s"].items()})


# ------------------------------------------------------------------------------ servers
@dataclass(frozen=True)
class Servers:
    clients: int
    messages: int
    length: int
    pool: int
    lengths: tuple[int, int]
    pool_matches_from: tuple[int, int]

    def texts(self) -> dict[str, str]:
        """The findings' published texts, by finding: pool, poller, length, default."""
        lo, hi = self.pool_matches_from
        return {"pool": f"matches from a pool of ~{lo}–{hi} threads, using nearly all of it ({self.clients} clients)",
                "poller": "best at 1 client, worst above it",
                "length": f"{self.lengths[0]}–{self.lengths[1]:,} chars: little difference".replace(",", " "),
                "default": f"pool {self.pool:,}: slightly better than thread-per-connection".replace(",", " ")}


@functools.cache
def servers() -> Servers:
    d = data()["servers"]
    return Servers(clients=d["clients"], messages=d["messages"], length=d["length"], pool=d["pool"],
                   lengths=tuple(d["lengths"]), pool_matches_from=tuple(d["pool_matches_from"]))
