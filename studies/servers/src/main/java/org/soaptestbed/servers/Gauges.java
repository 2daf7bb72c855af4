package org.soaptestbed.servers;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a server model counts as it runs, read by the {@link Sampler}:
 *
 * <pre>
 * threads      live threads the model made (acceptor, selector, workers, connection threads)
 * busy         of those, how many are handling a message right now (not waiting for I/O)
 * connections  open client connections
 * messages     messages answered (counted before the reply is written)
 * </pre>
 *
 * Peaks are exact (kept at every change); {@link #reset} starts a new measurement window.
 * {@code ownershipViolations} counts a connection handled by two threads at once: the pooled
 * model promises 0, and tests hold it to that.
 */
final class Gauges {

    final Level threads = new Level();
    final Level busy = new Level();
    final Level connections = new Level();
    final AtomicLong messages = new AtomicLong();
    final AtomicLong badFrames = new AtomicLong();
    final AtomicLong ownershipViolations = new AtomicLong();

    void reset() {
        threads.resetPeak();
        busy.resetPeak();
        connections.resetPeak();
        messages.set(0);
        badFrames.set(0);
        ownershipViolations.set(0);
    }

    /** A count that goes up and down, with its peak since the last reset. */
    static final class Level {
        private final AtomicInteger now = new AtomicInteger();
        private final AtomicInteger peak = new AtomicInteger();

        void up() {
            int v = now.incrementAndGet();
            peak.accumulateAndGet(v, Math::max);
        }

        void down() {
            now.decrementAndGet();
        }

        int now() {
            return now.get();
        }

        int peak() {
            return peak.get();
        }

        void resetPeak() {
            peak.set(now.get());
        }
    }
}
