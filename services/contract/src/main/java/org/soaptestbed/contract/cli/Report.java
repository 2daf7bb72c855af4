package org.soaptestbed.contract.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/** A run's result as the JSON object of docs/tiers.md, or as a few lines of text. */
final class Report {

    private static final ObjectMapper JSON = new ObjectMapper();

    private Report() {
    }

    /** One compact JSON document (Jackson): maps in their order, nulls written. */
    static String write(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not writable as JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** Exit status: 0 all checked, 1 a mismatch, 3 a fault or transport error. */
    static int exitStatus(Run.Result r) {
        if (r.mismatches() > 0) {
            return 1;
        }
        return r.faults() > 0 ? 3 : 0;
    }

    static Map<String, Object> json(CallOptions o, Run.Result r) {
        Outcome s = r.sample();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("client", "axis");
        m.put("endpoint", o.endpoint());
        m.put("op", o.op());
        m.put("n", o.n());
        m.put("seed", new java.math.BigInteger(o.seedText()));   // a uint64, printed unsigned
        m.put("calls", o.calls());
        m.put("connections", r.connections());
        m.put("ok", r.ok());
        m.put("errors", r.errors());
        m.put("count", s == null ? null : s.count());
        m.put("checksum", s == null ? null : s.checksum());
        m.put("expected_checksum", s == null ? null : s.expectedChecksum());
        m.put("echo_equal", s == null ? null : s.echoEqual());
        Map<String, Object> work = null;
        if (s != null && s.work() != null) {
            work = new LinkedHashMap<>();
            work.put("implementation", s.work().implementation());
            work.put("host", s.work().host());
            work.put("pid", s.work().pid());
        }
        m.put("work", work);
        m.put("request_bytes", r.requestBytes());
        m.put("response_bytes", r.responseBytes());
        m.put("seconds", round(r.seconds(), 6));
        m.put("throughput_rps", r.seconds() > 0 ? round(o.calls() / r.seconds(), 3) : null);
        m.put("latency_ms", latency(r.latencyNanos()));
        m.put("fault", r.firstFault());
        return m;
    }

    private static Map<String, Object> latency(long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        double sum = 0;
        for (long v : sorted) {
            sum += v;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("mean", round(sum / sorted.length / 1e6, 3));
        m.put("p50", ms(percentile(sorted, 50)));
        m.put("p90", ms(percentile(sorted, 90)));
        m.put("p99", ms(percentile(sorted, 99)));
        m.put("max", ms(sorted[sorted.length - 1]));
        return m;
    }

    /** Nearest-rank percentile of sorted values. */
    static long percentile(long[] sorted, int p) {
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    private static Double ms(long nanos) {
        return round(nanos / 1e6, 3);
    }

    /** v rounded to digits decimals; null (JSON has no NaN) when v is not finite. */
    private static Double round(double v, int digits) {
        if (!Double.isFinite(v)) {
            return null;
        }
        double scale = Math.pow(10, digits);
        return Math.round(v * scale) / scale;
    }

    static String text(CallOptions o, Run.Result r) {
        Map<String, Object> j = json(o, r);
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("axis client: %s n=%d seed=%s -> %s%n", o.op(), o.n(), o.seedText(), o.endpoint()));
        sb.append(String.format("%d calls over %d connections in %.3f s = %s calls/s; ok %d, errors %d%n",
                o.calls(), r.connections(), r.seconds(), j.get("throughput_rps"), r.ok(), r.errors()));
        if (j.get("checksum") != null) {
            sb.append(String.format("count %s checksum %s (expected %s)%n",
                    j.get("count"), j.get("checksum"), j.get("expected_checksum")));
        }
        if (j.get("echo_equal") != null) {
            sb.append("echo equal: ").append(j.get("echo_equal")).append('\n');
        }
        if (j.get("work") != null) {
            sb.append("served by: ").append(write(j.get("work"))).append('\n');
        }
        sb.append("bodies: request ").append(j.get("request_bytes"))
                .append(" bytes, response ").append(j.get("response_bytes")).append(" bytes\n");
        sb.append("latency ms: ").append(write(j.get("latency_ms"))).append('\n');
        if (r.firstFault() != null) {
            sb.append("first fault: ").append(r.firstFault()).append('\n');
        }
        return sb.toString();
    }
}
