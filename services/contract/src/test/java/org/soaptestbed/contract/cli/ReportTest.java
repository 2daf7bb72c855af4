package org.soaptestbed.contract.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReportTest {

    private static final CallOptions OPTIONS =
            new CallOptions("http://h/axis", "sendInts", 3, 1, 4, 2, 0, 0, true);

    private static Run.Result result(int ok, int mismatches, int faults, Outcome sample) {
        return new Run.Result(ok, mismatches, faults, faults > 0 ? "Client: no" : null, sample,
                100L, 50L, 2.0, new long[] {4_000_000, 1_000_000, 3_000_000, 2_000_000}, 2);
    }

    @Test
    void jsonHasTheKeysOfTheToolsContractInOrder() {
        Map<String, Object> j = Report.json(OPTIONS, result(4, 0, 0, Outcome.digest(3, 7, 3, 7)));
        assertEquals(List.of("client", "endpoint", "op", "n", "seed", "calls", "connections", "ok", "errors",
                "count", "checksum", "expected_checksum", "echo_equal", "work", "request_bytes",
                "response_bytes", "seconds", "throughput_rps", "latency_ms", "fault"), List.copyOf(j.keySet()));
        assertEquals("axis", j.get("client"));
        assertEquals(2.0, j.get("throughput_rps"));
        assertNull(j.get("echo_equal"));
    }

    @Test
    void latencyPercentilesUseNearestRank() {
        @SuppressWarnings("unchecked")
        Map<String, Object> l = (Map<String, Object>) Report.json(OPTIONS, result(4, 0, 0, null)).get("latency_ms");
        assertEquals(2.5, l.get("mean"));
        assertEquals(2.0, l.get("p50"));
        assertEquals(4.0, l.get("p90"));
        assertEquals(4.0, l.get("max"));
    }

    @Test
    void aMismatchWinsOverAFaultInTheExitStatus() {
        assertEquals(0, Report.exitStatus(result(4, 0, 0, null)));
        assertEquals(3, Report.exitStatus(result(3, 0, 1, null)));
        assertEquals(1, Report.exitStatus(result(2, 1, 1, null)));
    }

    @Test
    void jsonStringsAreEscaped() {
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("a", "q\"\n");
        m.put("b", null);
        m.put("c", 1.5);
        assertEquals("{\"a\":\"q\\\"\\n\",\"b\":null,\"c\":1.5}", Report.write(m));
    }
}
