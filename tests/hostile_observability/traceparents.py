"""Adversarial W3C `traceparent` headers, one catalogue for every tier and for HAProxy.

W3C Trace Context level 1, as the testbed applies it everywhere: exactly one `traceparent`
header, `00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>`, lower-case hex, neither id all
zeros, the sampled flag bit 0 of the flags. Anything else is invalid: not continued and never
forwarded as is (the tier or HAProxy starts afresh, unsampled).

Each case: (label, header values -- one per `traceparent` header line, possibly none --,
expected) with expected one of
  SAMPLED    valid, sampled: the receiver records a span of this trace
  UNSAMPLED  valid, not sampled: nothing recorded, the context passed on unchanged
  INVALID    nothing recorded, and what is forwarded (if anything) is not this value
"""
from __future__ import annotations

import json
from pathlib import Path

SAMPLED, UNSAMPLED, INVALID = "sampled", "unsampled", "invalid"

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT = "00f067aa0ba902b7"
GOOD = f"00-{TRACE}-{PARENT}-01"


def _tp(trace: str = TRACE, parent: str = PARENT, flags: str = "01", version: str = "00") -> str:
    return f"{version}-{trace}-{parent}-{flags}"


CASES: list[tuple[str, list[str], str]] = [
    ("valid sampled", [GOOD], SAMPLED),
    ("valid, other sampled flags (03)", [_tp(flags="03")], SAMPLED),
    ("valid, flags ff", [_tp(flags="ff")], SAMPLED),
    ("valid not sampled", [_tp(flags="00")], UNSAMPLED),
    ("valid not sampled, flags 02", [_tp(flags="02")], UNSAMPLED),
    ("all-zero trace id", [_tp(trace="0" * 32)], INVALID),
    ("all-zero parent id", [_tp(parent="0" * 16)], INVALID),
    ("both ids zero", [_tp(trace="0" * 32, parent="0" * 16)], INVALID),
    ("upper-case trace id", [_tp(trace=TRACE.upper())], INVALID),
    ("upper-case parent id", [_tp(parent=PARENT.upper())], INVALID),
    ("upper-case flags", [_tp(flags="0B")], INVALID),
    ("version 01", [_tp(version="01")], INVALID),
    ("version ff (forbidden)", [_tp(version="ff")], INVALID),
    ("version not hex", [_tp(version="zz")], INVALID),
    ("trace id 31 digits", [_tp(trace=TRACE[:31])], INVALID),
    ("trace id 33 digits", [_tp(trace=TRACE + "a")], INVALID),
    ("parent id 15 digits", [_tp(parent=PARENT[:15])], INVALID),
    ("parent id 17 digits", [_tp(parent=PARENT + "a")], INVALID),
    ("flags one digit", [_tp(flags="1")], INVALID),
    ("flags three digits", [_tp(flags="001")], INVALID),
    ("non-hex in trace id", [_tp(trace="g" + TRACE[1:])], INVALID),
    ("non-hex in parent id", [_tp(parent="x" + PARENT[1:])], INVALID),
    ("non-hex flags", [_tp(flags="0g")], INVALID),
    ("extra field after flags", [GOOD + "-abc"], INVALID),
    ("trailing garbage", [GOOD + "zz"], INVALID),
    ("leading space inside value", [" " + GOOD + "x"], INVALID),
    ("underscores as separators", [GOOD.replace("-", "_")], INVALID),
    ("missing flags", [f"00-{TRACE}-{PARENT}"], INVALID),
    ("missing parent", [f"00-{TRACE}--01"], INVALID),
    ("empty value", [""], INVALID),
    ("only dashes", ["---"], INVALID),
    ("two headers, both valid", [GOOD, _tp(trace="a" * 32)], INVALID),
    ("two headers, valid then invalid", [GOOD, "garbage"], INVALID),
    ("two headers, invalid then valid", ["garbage", GOOD], INVALID),
    ("two values in one header (comma list)", [f"{GOOD}, {_tp(trace='b' * 32)}"], INVALID),
    ("valid then comma and junk", [GOOD + ",junk"], INVALID),
    ("quote and space in value", [GOOD + '" x'], INVALID),
    ("percent-encoded value", [GOOD.replace("-", "%2D")], INVALID),
    ("non-ASCII byte in trace id (latin-1 e-acute)", [_tp(trace="\xe9" + TRACE[1:])], INVALID),
    ("8 KB value", [GOOD + "0" * 8000], INVALID),
    ("log line injected after value", [GOOD + " tp " + "a" * 32], INVALID),
    ("negative-looking flags", [_tp(flags="-1")], INVALID),
    ("plus sign in id", [_tp(trace="+" + TRACE[1:])], INVALID),
    ("tab inside", [GOOD.replace("-", "\t", 1)], INVALID),
    ("no traceparent header", [], INVALID),
]



# The tiers' own unit tests (JUnit in java-common, ctest in services/gsoap) read the catalogue
# from this JSON export; test_tier_trace_catalogue.py checks that it is the catalogue above.
JSON_EXPORT = Path(__file__).with_name("traceparents.json")


def export() -> str:
    """The catalogue as JSON: [{"label", "headers", "expected"}], ASCII only (\\u escapes)."""
    return json.dumps([{"label": label, "headers": headers, "expected": expected}
                       for label, headers, expected in CASES], indent=1) + "\n"


if __name__ == "__main__":      # python tests/hostile_observability/traceparents.py: rewrite the export
    JSON_EXPORT.write_text(export())
