package org.soaptestbed.serialization;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.soaptestbed.contract.v1.TestbedServiceStub;

/**
 * {@code message}: one request's sizes and Axis2/ADB's (de)serialization times, the same
 * fields as the C++ side (cpp/cmd_message.cpp):
 * <pre>
 * xml_bytes    the envelope as Axis2 serializes it (in memory)
 * http_bytes   the whole HTTP request the generated stub sends (chunked, Axis2's default),
 *              as a loopback sink received it
 * ser_ns       bean -> envelope bytes in memory
 * deser_ns     envelope bytes -> Axiom envelope -> the generated parser's bean, checked
 * write_ns     --socket: the stub's whole call to the loopback sink (its short fixed
 *              answer included)
 * read_ns      --socket: the envelope read from a loopback socket and parsed
 * </pre>
 * Before the timed runs the JIT is warmed on the same operation (a 20 000-item message
 * for larger ones) for --jit-seconds.
 */
final class MessageCommand {

    private static final int WARM_ITEMS = 20_000;

    private MessageCommand() {
    }

    static Map<String, Object> run(Options o, Clients clients) throws Exception {
        Message m = Message.of(o.op, o.n, o.seed);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("impl", "axis");
        out.put("command", "message");
        out.put("op", o.op);
        out.put("n", o.n);
        out.put("seed", o.seed);
        out.put("raw_bytes", m.rawBytes);

        Bytes buf = new Bytes(1 << 16);
        Envelopes.write(m, buf);
        byte[] xml = buf.copy();
        out.put("xml_bytes", xml.length);

        HttpSink.Received wire;
        try (HttpSink sink = new HttpSink(o.dumpHttp != null)) {
            m.call(clients.stub(sink.endpoint()));
            wire = sink.next();
        }
        boolean bodyIsEnvelope = Arrays.equals(wire.bodySha256(), HttpSink.sha256().digest(xml));
        if (o.dump != null) {
            Files.write(Path.of(o.dump), xml);
        }
        if (o.dumpHttp != null) {
            Files.write(Path.of(o.dumpHttp), wire.wire());
        }
        out.put("http_bytes", wire.wireBytes());
        out.put("http_header_bytes", wire.wireBytes() - xml.length);
        out.put("http_body_is_envelope", bodyIsEnvelope);

        out.put("expected_count", m.expectedCount);
        out.put("expected_checksum", m.expectedChecksum);
        if (!bodyIsEnvelope) {
            out.put("valid", false);
            out.put("invalid_reason", "the stub's HTTP body differs from the envelope");
            return out;
        }

        Message warm = o.n > WARM_ITEMS ? Message.of(o.op, WARM_ITEMS, o.seed) : m;
        Bytes warmBuf = new Bytes(1 << 16);
        o.timing.warmJit(() -> {
            warmBuf.reset();
            Envelopes.write(warm, warmBuf);
            Envelopes.read(warm, new ByteArrayInputStream(warmBuf.array(), 0, warmBuf.size()));
            return 0;
        });
        long[][] got = new long[1][];
        List<long[]> mem = o.timing.rounds(List.of(
            () -> {
                buf.reset();
                long t0 = System.nanoTime();
                Envelopes.write(m, buf);
                long t1 = System.nanoTime();
                check(buf.size() == xml.length, "serialization wrote another size");
                return t1 - t0;
            },
            () -> {   // every run checks what it read (the first answer is reported)
                long t0 = System.nanoTime();
                long[] d = Envelopes.read(m, new ByteArrayInputStream(xml));
                long t1 = System.nanoTime();
                if (got[0] == null) {
                    got[0] = d;
                }
                check(m.expected(d), "deserialization gave count " + d[0] + ", checksum " + d[1]);
                return t1 - t0;
            }));
        out.put("count", got[0][0]);
        out.put("checksum", got[0][1]);
        out.put("valid", true);
        out.put("ser_ns", Timing.json(mem.get(0)));
        out.put("deser_ns", Timing.json(mem.get(1)));

        if (o.socket) {
            try (HttpSink sink = new HttpSink(false)) {
                TestbedServiceStub stub = clients.stub(sink.endpoint());
                List<long[]> net = o.timing.rounds(List.of(
                    () -> {
                        long t0 = System.nanoTime();
                        m.call(stub);
                        long t1 = System.nanoTime();
                        check(sink.next().wireBytes() == wire.wireBytes(), "the write sent another size");
                        return t1 - t0;
                    },
                    () -> readFromSocket(m, xml)));
                out.put("write_ns", Timing.json(net.get(0)));
                out.put("read_ns", Timing.json(net.get(1)));
            }
        } else {
            out.put("write_ns", null);
            out.put("read_ns", null);
        }
        return out;
    }

    /** A thread writes xml into a loopback connection; the envelope is read from it. */
    private static long readFromSocket(Message m, byte[] xml) throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread writer = new Thread(() -> {
                try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
                     OutputStream w = s.getOutputStream()) {
                    w.write(xml);
                    s.shutdownOutput();
                    s.getInputStream().read();  // until the reader closes
                } catch (IOException e) {
                    // the reader reports the failure
                }
            });
            writer.setDaemon(true);
            writer.start();
            try (Socket s = server.accept()) {
                s.setSoTimeout(120_000);
                InputStream in = s.getInputStream();
                long t0 = System.nanoTime();
                long[] d = Envelopes.read(m, in);
                long t1 = System.nanoTime();
                check(m.expected(d), "the read from a socket gave another count or checksum");
                return t1 - t0;
            } finally {
                writer.join(10_000);
            }
        }
    }

    static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException(what);
        }
    }
}
