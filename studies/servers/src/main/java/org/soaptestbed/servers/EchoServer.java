package org.soaptestbed.servers;

import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * One socket server threading model (docs/method.md, "Socket server models"). Every model answers each frame
 * ({@link Frame}) with the same frame after the message's {@link Work}, on loopback only, and
 * counts its threads, busy threads, connections and messages in {@link #gauges}.
 *
 * <pre>
 * thread   blocking ServerSocket; an acceptor thread and one thread per connection
 * poller   one thread: an NIO Selector that accepts, reads, works and writes
 * pooled   one Selector thread that hands ready connections to a bounded pool of workers;
 *          a connection's interest is cleared while a worker owns it, so no two workers
 *          ever handle one connection at once
 * </pre>
 */
abstract class EchoServer implements AutoCloseable {

    enum Model {
        THREAD, POLLER, POOLED;

        static Model parse(String text) {
            for (Model m : values()) {
                if (m.name().equalsIgnoreCase(text.trim())) {
                    return m;
                }
            }
            throw new Options.Bad("--model " + text + ": expected thread, poller or pooled");
        }

        @Override
        public String toString() {
            return name().toLowerCase();
        }
    }

    /** Connections the kernel may hold before the server accepts them (capped by net.core.somaxconn). */
    static final int BACKLOG = 4096;
    /** Longest wait for the model's threads to end when the server closes. */
    static final long CLOSE_WAIT_MS = 5_000;

    final Gauges gauges = new Gauges();
    final InetSocketAddress address;
    private final Work configured;
    private volatile Work active;

    EchoServer(InetSocketAddress address, Work work) {
        if (!address.getAddress().isLoopbackAddress()) {
            throw new Options.Bad("--host " + address.getHostString() + ": the study serves on loopback only "
                    + "(127.0.0.0/8 or ::1)");
        }
        this.address = address;
        this.configured = work;
        this.active = work;
    }

    /** The work each message gets now: the configured one, or none while it is held. */
    Work work() {
        return active;
    }

    /** Answers without the per-message work until {@link #releaseWork} (a warm-up of the I/O path). */
    void holdWork() {
        active = Work.NONE;
    }

    void releaseWork() {
        active = configured;
    }

    static EchoServer create(Model model, int pool, Work work, InetSocketAddress address) {
        return switch (model) {
            case THREAD -> new ThreadPerConnectionServer(address, work);
            case POLLER -> new SelectorServer(address, work);
            case POOLED -> new PooledSelectorServer(address, work, pool);
        };
    }

    /** Binds and starts the model's threads; returns once it accepts connections. */
    abstract void start() throws IOException;

    /** The port it listens on (after {@link #start}). */
    abstract int port();

    /** Stops accepting, closes every connection, and ends the model's threads (bounded wait). */
    @Override
    public abstract void close();

    /** A thread of this model: counted in {@code gauges.threads} from now until it ends. */
    Thread counted(String name, Runnable body) {
        gauges.threads.up();
        Thread t = new Thread(() -> {
            try {
                body.run();
            } finally {
                gauges.threads.down();
            }
        }, name);
        t.setDaemon(true);
        return t;
    }

    static void join(Thread t) {
        try {
            t.join(CLOSE_WAIT_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
