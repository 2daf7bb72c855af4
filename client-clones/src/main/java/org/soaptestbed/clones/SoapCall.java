package org.soaptestbed.clones;

import java.io.Writer;
import java.rmi.RemoteException;
import java.util.Arrays;
import javax.xml.stream.XMLStreamException;
import org.apache.axiom.blob.Blobs;
import org.apache.axiom.om.OMElement;
import org.apache.axiom.util.activation.DataHandlerUtils;
import org.apache.axis2.databinding.types.UnsignedByte;
import org.soaptestbed.common.trace.Span;
import org.soaptestbed.common.trace.Tracer;
import org.soaptestbed.contract.Checksum;
import org.soaptestbed.contract.Payload;
import org.soaptestbed.contract.v1.Digest;
import org.soaptestbed.contract.v1.EchoInts;
import org.soaptestbed.contract.v1.Ping;
import org.soaptestbed.contract.v1.SendBytes;
import org.soaptestbed.contract.v1.SendDoubles;
import org.soaptestbed.contract.v1.SendFloats;
import org.soaptestbed.contract.v1.SendIntBuffer;
import org.soaptestbed.contract.v1.SendInts;
import org.soaptestbed.contract.v1.Work;
import org.soaptestbed.contract.v1.WorkResponse;

/**
 * One contract operation ready to send: the request bean built from the seeded payload
 * generator, what the answer must be (computed locally), and how to check it.
 *
 * <p>The payload is built when the call is prepared, outside any client lock; only
 * {@link #send} touches a stub, so a client's lock covers exactly the SOAP exchange.
 */
public final class SoapCall {

    /** The answer does not match what was sent (HTTP 502: the service tier is wrong). */
    public static final class WrongAnswer extends Exception {
        private static final long serialVersionUID = 1L;

        WrongAnswer(String message) {
            super(message);
        }
    }

    /** What a checked answer shows; null where the operation has no such value. */
    public record Result(Long count, Long checksum, Boolean echoEqual, WorkResponse work, String answer) {
        Result(Long count, Long checksum, Boolean echoEqual, WorkResponse work) {
            this(count, checksum, echoEqual, work, null);
        }
    }

    /** The most of an own service's answer /invoke shows. */
    static final int ANSWER_CHARS = 300;

    @FunctionalInterface
    private interface Sender {
        Object send(SoapClient client) throws RemoteException;
    }

    @FunctionalInterface
    private interface Checker {
        Result check(Object response) throws WrongAnswer;
    }

    private final String op;
    private final Sender sender;
    private final Checker checker;

    private SoapCall(String op, Sender sender, Checker checker) {
        this.op = op;
        this.sender = sender;
        this.checker = checker;
    }

    public String op() {
        return op;
    }

    /** Sends the request with {@code client} and returns the response (no checking). */
    public Object send(SoapClient client) throws RemoteException {
        try (Span call = Tracer.child("POST", Span.Kind.CLIENT)) {   // HttpTransport sends its traceparent
            if (call != null) {
                call.tag("soap.operation", op);
            }
            return sender.send(client);
        }
    }

    /** Checks the response bean against the local computation. */
    public Result check(Object response) throws WrongAnswer {
        return checker.check(response);
    }

    /** Builds the request of {@code r} (payload generated here). */
    public static SoapCall prepare(InvokeRequest r) {
        int n = r.n();
        long seed = r.seed();
        switch (r.op()) {
            case "ping":
                return new SoapCall("ping", c -> c.stub().ping(new Ping()), resp -> new Result(null, null, null, null));
            case "sendBytes": {
                int[] items = Payload.bytes(n, seed);
                UnsignedByte[] wire = new UnsignedByte[n];
                for (int i = 0; i < n; i++) {
                    wire[i] = new UnsignedByte(items[i]);
                }
                SendBytes req = new SendBytes();
                req.setItems(wire);
                return digest("sendBytes", n, Checksum.ofUnsignedBytes(items),
                        c -> c.stub().sendBytes(req).getSendBytesResponse());
            }
            case "sendInts": {
                int[] items = Payload.ints(n, seed);
                SendInts req = new SendInts();
                req.setItems(items);
                return digest("sendInts", n, Checksum.ofInts(items), c -> c.stub().sendInts(req).getSendIntsResponse());
            }
            case "sendFloats": {
                float[] items = Payload.floats(n, seed);
                SendFloats req = new SendFloats();
                req.setItems(items);
                return digest("sendFloats", n, Checksum.ofFloats(items),
                        c -> c.stub().sendFloats(req).getSendFloatsResponse());
            }
            case "sendDoubles": {
                double[] items = Payload.doubles(n, seed);
                SendDoubles req = new SendDoubles();
                req.setItems(items);
                return digest("sendDoubles", n, Checksum.ofDoubles(items),
                        c -> c.stub().sendDoubles(req).getSendDoublesResponse());
            }
            case "sendIntBuffer": {
                byte[] data = Payload.intBuffer(Payload.ints(n, seed));
                SendIntBuffer req = new SendIntBuffer();
                req.setData(DataHandlerUtils.toDataHandler(Blobs.createBlob(data)));
                return digest("sendIntBuffer", n, Checksum.ofBytes(data),
                        c -> c.stub().sendIntBuffer(req).getSendIntBufferResponse());
            }
            case "echoInts":
                return echo(Payload.ints(n, seed));
            case "work": {
                Work req = new Work();
                req.setCpuMicros(r.cpuMicros());
                req.setWaitMicros(r.waitMicros());
                return new SoapCall("work", c -> c.stub().work(req), resp -> {
                    WorkResponse w = (WorkResponse) resp;
                    if (w == null || w.getHost() == null || w.getImplementation() == null) {
                        throw new WrongAnswer("work: the answer names no implementation or host");
                    }
                    return new Result(null, null, null, w);
                });
            }
            default:
                throw new IllegalArgumentException("not a contract operation: " + r.op());
        }
    }

    /**
     * The user's own operation with arrays of {@code n} items: the template expanded here (outside
     * any client lock), parsed into the request when sent. Any answer that is not a SOAP Fault is
     * right: the testbed cannot know what the service computes.
     */
    public static SoapCall own(OwnService own, int n) {
        String request = own.template().expand(n);
        return new SoapCall(own.operation(), c -> c.sendOwn(own.operation(), request), resp -> {
            if (resp == null) {
                throw new WrongAnswer(own.operation() + ": the answer's SOAP Body is empty");
            }
            return new Result(null, null, null, null, head((OMElement) resp));
        });
    }

    /** Thrown by {@link #head}'s writer once it holds enough. */
    private static final class Enough extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Enough() {
            super(null, null, false, false);
        }
    }

    /**
     * The first ANSWER_CHARS of the answer as XML ("..." after when there is more): serializing
     * stops there, so a large answer costs the call no more than a small one to show.
     */
    static String head(OMElement answer) {
        StringBuilder out = new StringBuilder();
        Writer upTo = new Writer() {
            @Override
            public void write(char[] chars, int off, int len) {
                out.append(chars, off, Math.min(len, ANSWER_CHARS + 1 - out.length()));
                if (out.length() > ANSWER_CHARS) {
                    throw new Enough();
                }
            }

            @Override
            public void flush() {
                // nothing buffered
            }

            @Override
            public void close() {
                // nothing held
            }
        };
        try {
            answer.serialize(upTo);
        } catch (XMLStreamException | RuntimeException e) {
            if (out.length() <= ANSWER_CHARS) {        // not stopped by Enough: a real failure
                return out + " (the rest could not be written: " + e.getClass().getSimpleName() + ")";
            }
        }
        return out.length() > ANSWER_CHARS ? out.substring(0, ANSWER_CHARS) + "..." : out.toString();
    }

    private static SoapCall digest(String op, int n, long expected, Sender sender) {
        return new SoapCall(op, sender, resp -> {
            Digest d = (Digest) resp;
            if (d == null || d.getChecksum() == null) {
                throw new WrongAnswer(op + ": the answer has no count or checksum");
            }
            long count = d.getCount();
            long checksum = d.getChecksum().longValue();
            if (count != n || checksum != expected) {
                throw new WrongAnswer(String.format(
                        "%s: wrong checksum: the service answered count=%d checksum=%d, expected count=%d checksum=%d",
                        op, count, checksum, n, expected));
            }
            return new Result(count, checksum, null, null);
        });
    }

    private static SoapCall echo(int[] items) {
        EchoInts req = new EchoInts();
        req.setItems(items);
        return new SoapCall("echoInts", c -> c.stub().echoInts(req), resp -> {
            int[] back = ((org.soaptestbed.contract.v1.EchoIntsResponse) resp).getItems();
            if (back == null) {
                back = new int[0];
            }
            if (!Arrays.equals(items, back)) {
                throw new WrongAnswer(String.format(
                        "echoInts: the echo differs from the request (%d items sent, %d returned)",
                        items.length, back.length));
            }
            return new Result((long) back.length, Checksum.ofInts(back), true, null);
        });
    }
}
