package org.soaptestbed.serialization;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.soaptestbed.contract.Checksum;
import org.soaptestbed.contract.Payload;
import org.soaptestbed.contract.v1.TestbedServiceStub;

/**
 * {@code mtom}: sendIntBuffer through the generated stub with the ints as base64 in the
 * body ({@code --form base64}) or as an MTOM/XOP attachment ({@code --form mtom}: the
 * client's ENABLE_MTOM; ADB then writes the DataHandler as xop:Include). The request's
 * bytes on the wire come from one call to a loopback sink; the round-trip times from
 * calls to the service at --endpoint, whose count and checksum are checked every call.
 */
final class MtomCommand {

    private MtomCommand() {
    }

    static Map<String, Object> run(Options o, Clients clients) throws Exception {
        boolean mtom = o.form.equals("mtom");
        Message m = Message.of("sendIntBuffer", o.n, o.seed);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("impl", "axis");
        out.put("command", "mtom");
        out.put("form", o.form);
        out.put("n", o.n);
        out.put("seed", o.seed);
        out.put("raw_bytes", m.rawBytes);
        out.put("expected_count", m.expectedCount);
        out.put("expected_checksum", m.expectedChecksum);
        out.put("int_array_checksum", Checksum.ofInts(Payload.ints(o.n, o.seed)));
        try (HttpSink sink = new HttpSink(false)) {
            m.call(clients.stub(sink.endpoint(), mtom));
            out.put("request_bytes", sink.next().wireBytes());
        }
        TestbedServiceStub stub = clients.stub(o.endpoint, mtom);
        String[] wrong = new String[1];
        Timing t = new Timing();
        t.warmup = 1;
        t.minRuns = o.calls;
        t.maxRuns = o.calls;
        t.minSeconds = 0;
        t.jitSeconds = o.timing.jitSeconds;
        t.warmJit(() -> {
            m.call(stub);
            return 0;
        });
        List<long[]> ns = t.rounds(List.of(() -> {
            long t0 = System.nanoTime();
            long[] d = m.call(stub);
            long t1 = System.nanoTime();
            if (!m.expected(d)) {
                wrong[0] = "the service answered count " + d[0] + ", checksum " + d[1];
                throw new IllegalStateException(wrong[0]);
            }
            return t1 - t0;
        }));
        out.put("valid", true);
        out.put("call_ns", Timing.json(ns.get(0)));
        return out;
    }
}
