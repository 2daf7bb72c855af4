package org.soaptestbed.servers;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The load: N connections, each sending M request/reply messages of L bytes one after the
 * other (the next request leaves when the reply to the last one has arrived and matched it).
 * One thread drives every connection through a Selector, so the client's own thread count is
 * the same at 1 and at 1 000 connections and only the server's model changes between runs.
 *
 * <p>Completion time runs from the first connect to the last verified reply (connection
 * set-up included: it is where thread-per-connection makes its threads). A message's latency
 * runs from the start of writing its request to the end of reading its reply. Every reply is
 * compared byte for byte with its request; the payload starts with the connection's and the
 * message's number, so a reply on the wrong connection or out of order fails.
 */
final class ClientDriver {

    /** Most messages one run may send (N × M): bounds the latency array (8 bytes each). */
    static final long MAX_MESSAGES = 20_000_000L;
    private static final long SELECT_MS = 100;

    private final InetSocketAddress server;
    private final int connections;
    private final int messages;
    private final int length;

    private long[] latencies;
    private int done;
    private int errors;
    private String firstError;

    ClientDriver(InetSocketAddress server, int connections, int messages, int length) {
        if ((long) connections * messages > MAX_MESSAGES) {
            throw new Options.Bad("--connections × --messages = " + (long) connections * messages
                    + " is more than " + MAX_MESSAGES + " messages in one run");
        }
        if (length < Frame.MIN_LENGTH || length > Frame.MAX_LENGTH) {
            throw new Options.Bad("--length " + length + ": expected " + Frame.MIN_LENGTH + " to " + Frame.MAX_LENGTH
                    + " bytes");
        }
        this.server = server;
        this.connections = connections;
        this.messages = messages;
        this.length = length;
    }

    /** One connection's state. */
    private static final class Conn {
        final int id;
        final SocketChannel channel;
        final ByteBuffer request;
        final ByteBuffer reply;
        int msg;
        long sentAt;

        Conn(int id, SocketChannel channel, int length) {
            this.id = id;
            this.channel = channel;
            this.request = ByteBuffer.allocateDirect(Frame.HEADER + length);
            this.reply = ByteBuffer.allocateDirect(Frame.HEADER + length);
            Frame.fillRequest(request, id, length);
        }
    }

    /** Runs the load and returns what the study records; stops at {@code deadlineNanos} (System.nanoTime). */
    Map<String, Object> run(long deadlineNanos) {
        latencies = new long[connections * messages];
        done = 0;
        errors = 0;
        firstError = null;
        Conn[] conns = new Conn[connections];
        boolean deadlineHit = false;
        long start = System.nanoTime();
        long connected = start;
        long end = start;
        try (Selector selector = Selector.open()) {
            int opened = 0;
            try {
                for (; opened < connections; opened++) {
                    if (System.nanoTime() > deadlineNanos) {
                        throw new IOException("deadline reached while connecting");
                    }
                    SocketChannel ch = SocketChannel.open();
                    ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    conns[opened] = new Conn(opened, ch, length);
                    ch.connect(server);
                    ch.configureBlocking(false);
                    ch.register(selector, 0, conns[opened]);
                }
            } catch (IOException e) {
                error("connection " + (opened + 1) + " of " + connections + " failed: " + e.getMessage());
                return result(start, System.nanoTime(), System.nanoTime(), false);
            }
            connected = System.nanoTime();
            int open = connections;
            for (Conn c : conns) {
                if (!send(c, selector)) {
                    open--;
                }
            }
            while (open > 0) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    deadlineHit = true;
                    break;
                }
                selector.select(Math.max(1, Math.min(SELECT_MS, left / 1_000_000)));
                Iterator<SelectionKey> it = selector.selectedKeys().iterator();
                while (it.hasNext()) {
                    SelectionKey key = it.next();
                    it.remove();
                    if (key.isValid() && !step((Conn) key.attachment(), key, selector)) {
                        open--;
                    }
                }
            }
            end = System.nanoTime();
        } catch (IOException e) {
            error("selector failed: " + e.getMessage());
            end = System.nanoTime();
        } finally {
            for (Conn c : conns) {
                if (c != null) {
                    close(c);
                }
            }
        }
        return result(start, connected, end, deadlineHit);
    }

    /** Starts message c.msg; false when the connection has ended. */
    private boolean send(Conn c, Selector selector) {
        Frame.setMessage(c.request, c.msg);
        c.reply.clear();
        c.sentAt = System.nanoTime();
        return write(c, c.channel.keyFor(selector));
    }

    private boolean write(Conn c, SelectionKey key) {
        try {
            c.channel.write(c.request);
        } catch (IOException e) {
            return fail(c, "connection " + c.id + ": write failed at message " + c.msg + ": " + e.getMessage());
        }
        key.interestOps(c.request.hasRemaining() ? SelectionKey.OP_WRITE : SelectionKey.OP_READ);
        return true;
    }

    /** The connection is ready; false when it has ended (all messages done, or failed). */
    private boolean step(Conn c, SelectionKey key, Selector selector) {
        if (key.isWritable()) {
            return write(c, key);
        }
        int r;
        try {
            r = c.channel.read(c.reply);
        } catch (IOException e) {
            return fail(c, "connection " + c.id + ": read failed at message " + c.msg + ": " + e.getMessage());
        }
        if (r < 0) {
            return fail(c, "connection " + c.id + ": closed by the server after " + c.msg + " of " + messages
                    + " messages");
        }
        if (c.reply.hasRemaining()) {
            return true;
        }
        long now = System.nanoTime();
        c.reply.flip();
        c.request.rewind();
        if (!c.reply.equals(c.request)) {
            return fail(c, "connection " + c.id + ": reply to message " + c.msg + " differs from the request at byte "
                    + c.reply.mismatch(c.request));
        }
        latencies[done++] = now - c.sentAt;
        c.msg++;
        if (c.msg == messages) {
            close(c);
            return false;
        }
        return send(c, selector);
    }

    private boolean fail(Conn c, String what) {
        error(what);
        close(c);
        return false;
    }

    private void error(String what) {
        errors++;
        if (firstError == null) {
            firstError = what;
        }
    }

    private static void close(Conn c) {
        try {
            c.channel.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    private Map<String, Object> result(long start, long connected, long end, boolean deadlineHit) {
        long expected = (long) connections * messages;
        double completion = (end - start) / 1e9;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("complete", done == expected && errors == 0 && !deadlineHit);
        m.put("connections", connections);
        m.put("messages_per_connection", messages);
        m.put("length", length);
        m.put("expected", expected);
        m.put("verified", done);
        m.put("errors", errors);
        m.put("first_error", firstError);
        m.put("deadline_hit", deadlineHit);
        m.put("connect_s", (connected - start) / 1e9);
        m.put("exchange_s", (end - connected) / 1e9);
        m.put("completion_s", completion);
        m.put("messages_per_s", completion > 0 ? done / completion : null);
        m.put("latency_us", latencySummary());
        return m;
    }

    /** Percentiles of the per-message latency in µs (linear interpolation, like analysis/stats.py). */
    private Map<String, Object> latencySummary() {
        Map<String, Object> m = new LinkedHashMap<>();
        if (done == 0) {
            return m;
        }
        long[] xs = Arrays.copyOf(latencies, done);
        Arrays.sort(xs);
        double sum = 0;
        for (long x : xs) {
            sum += x;
        }
        m.put("p50", percentile(xs, 50) / 1e3);
        m.put("p90", percentile(xs, 90) / 1e3);
        m.put("p99", percentile(xs, 99) / 1e3);
        m.put("max", xs[xs.length - 1] / 1e3);
        m.put("mean", sum / xs.length / 1e3);
        return m;
    }

    static double percentile(long[] sorted, double q) {
        double pos = (sorted.length - 1) * q / 100;
        int lo = (int) Math.floor(pos);
        int hi = (int) Math.ceil(pos);
        return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
    }
}
