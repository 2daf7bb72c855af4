package org.soaptestbed.servers;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Model "pooled": the Selector thread of {@link SelectorServer} only accepts and watches; a
 * ready connection goes to a fixed pool of worker threads (all started up front). Before the
 * hand-off the selector clears the connection's interest set, so it cannot report the
 * connection again while a worker owns it; the worker sets the interest it needs next and
 * wakes the selector when it is done. A connection is thus never handled by two workers at
 * once ({@link NioConnection#owned} checks it: {@code gauges.ownershipViolations} stays 0).
 * Threads in use: pool + 1.
 *
 * <p>The hand-off queue has no fixed bound, but holds each connection at most once (its
 * interest is cleared while queued), so it is bounded by the number of connections.
 */
final class PooledSelectorServer extends SelectorServer {

    private final int poolSize;
    private ThreadPoolExecutor pool;

    PooledSelectorServer(InetSocketAddress address, Work work, int poolSize) {
        super(address, work);
        if (poolSize < 1) {
            throw new Options.Bad("--pool " + poolSize + ": expected at least 1 worker");
        }
        this.poolSize = poolSize;
    }

    @Override
    void start() throws IOException {
        AtomicInteger n = new AtomicInteger();
        pool = new ThreadPoolExecutor(poolSize, poolSize, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
                r -> counted("worker-" + n.incrementAndGet(), r));
        pool.prestartAllCoreThreads();
        super.start();
    }

    int poolSize() {
        return poolSize;
    }

    @Override
    protected void ready(SelectionKey key) {
        key.interestOps(0);                       // the selector lets go of it until the worker re-arms
        pool.execute(() -> serve(key));
    }

    private void serve(SelectionKey key) {
        NioConnection c = (NioConnection) key.attachment();
        if (!c.owned.compareAndSet(false, true)) {
            gauges.ownershipViolations.incrementAndGet();
            return;
        }
        int ops = advance(c);
        c.owned.set(false);                       // before re-arming: the selector may hand it out at once
        try {
            rearm(key, c, ops);
        } catch (java.nio.channels.CancelledKeyException e) {
            c.close();                            // the server is closing
            return;
        }
        selector.wakeup();                        // the selector applies the new interest on its next select
    }

    @Override
    protected void closeWorkers() {
        if (pool == null) {
            return;
        }
        pool.shutdownNow();
        try {
            pool.awaitTermination(CLOSE_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
