package org.soaptestbed.clones;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Times the wait for, and the holding of, a backend's clients: the one measurement of the
 * client tier's lock, read by /status ("lock") and by JMX ({@link ClientLockMXBean}). A caller
 * brackets its wait with {@link #arrive()} and {@link #acquired(long)} (or {@link #gaveUp(long)})
 * and its use with {@link #released(long)}; each costs a nanoTime and an add, no lock of its own.
 */
final class LockTimer implements ClientLockMXBean {

    private final AtomicInteger waiting = new AtomicInteger();
    private final LongAdder acquisitions = new LongAdder();
    private final LongAdder timeouts = new LongAdder();
    private final LongAdder waitNanos = new LongAdder();
    private final LongAdder heldNanos = new LongAdder();

    /** A call starts waiting; returns the time to hand to acquired/gaveUp. */
    long arrive() {
        waiting.incrementAndGet();
        return System.nanoTime();
    }

    /** The call got the lock; returns the time to hand to released. */
    long acquired(long arrivedAt) {
        long now = System.nanoTime();
        waiting.decrementAndGet();
        waitNanos.add(now - arrivedAt);
        acquisitions.increment();
        return now;
    }

    /** The call stopped waiting without the client (its wait is not summed: waits are those of
     *  the calls that got it, as their holds are). */
    void gaveUp(long arrivedAt) {
        waiting.decrementAndGet();
        timeouts.increment();
    }

    void released(long acquiredAt) {
        heldNanos.add(System.nanoTime() - acquiredAt);
    }

    @Override
    public int getWaitingThreads() {
        return waiting.get();
    }

    @Override
    public long getAcquisitions() {
        return acquisitions.sum();
    }

    @Override
    public long getTimeouts() {
        return timeouts.sum();
    }

    @Override
    public double getWaitSeconds() {
        return waitNanos.sum() / 1e9;
    }

    @Override
    public double getHeldSeconds() {
        return heldNanos.sum() / 1e9;
    }

    /** The "lock" object of /status. */
    Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("waiting", getWaitingThreads());
        m.put("acquisitions", getAcquisitions());
        m.put("timeouts", getTimeouts());
        m.put("wait_s", Math.round(getWaitSeconds() * 1e6) / 1e6);
        m.put("held_s", Math.round(getHeldSeconds() * 1e6) / 1e6);
        return m;
    }
}
