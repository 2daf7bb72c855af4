package org.soaptestbed.common;

import java.util.function.LongSupplier;

/**
 * Leaving the load balancer's rotation before stopping. On SIGTERM a tier does not stop
 * listening at once: {@code GET /health} answers 404 "draining" (HAProxy's
 * {@code http-check disable-on-404} takes a server out of rotation at the first such answer,
 * without waiting for a fall count), and the tier keeps serving whatever still arrives until
 * the balancer has stopped sending; only then does it stop accepting and finish what is in
 * flight. A replica removed by {@code docker compose up --scale} or {@code docker service
 * scale} therefore never refuses or drops a request HAProxy sent it (docs/docker.md).
 *
 * <p>The rule, in {@link #done}: draining ends once no request (other than a health check)
 * has arrived for {@link #QUIET_MS}, and either a health check was answered "draining" or no
 * health check came for {@link #CHECKS_GONE_MS} (the balancer itself is gone). It never takes
 * longer than {@link #MAX_MS}. A tier that no balancer watches (no health check in the
 * {@link #WATCHED_MS} before the signal) does not drain at all.
 */
public final class Drain {
    public static final long QUIET_MS = 1_000;       // HAProxy checks every 1 s: one check, then quiet
    public static final long CHECKS_GONE_MS = 2_500;  // more than two check intervals without a check
    public static final long WATCHED_MS = 5_000;      // a check this recently: someone balances to us
    public static final long MAX_MS = 8_000;          // + ≤ 5 s in flight < compose's stop_grace_period

    private final LongSupplier clock;
    private volatile long lastRequest = Long.MIN_VALUE / 2;
    private volatile long lastHealth = Long.MIN_VALUE / 2;
    private volatile long began = -1;
    private volatile boolean announced;

    public Drain() {
        this(() -> System.nanoTime() / 1_000_000);
    }

    /** With a millisecond clock of one's own (tests). */
    public Drain(LongSupplier clockMillis) {
        this.clock = clockMillis;
    }

    /** A request other than a health check arrived. */
    public void requestArrived() {
        lastRequest = clock.getAsLong();
    }

    /** A health check arrived; true when it must be answered "draining" (404). */
    public boolean healthChecked() {
        lastHealth = clock.getAsLong();
        if (began >= 0) {
            announced = true;
            return true;
        }
        return false;
    }

    public boolean draining() {
        return began >= 0;
    }

    /** SIGTERM arrived: answer health checks "draining" from now on. */
    public void begin() {
        if (began < 0) {
            began = clock.getAsLong();
        }
    }

    /** Whether draining is over (see the class comment); true before {@link #begin} too. */
    public boolean done() {
        if (began < 0) {
            return true;
        }
        long now = clock.getAsLong();
        if (began - lastHealth > WATCHED_MS || now - began >= MAX_MS) {
            return true;
        }
        boolean quiet = now - lastRequest >= QUIET_MS;
        return quiet && (announced || now - lastHealth >= CHECKS_GONE_MS);
    }

    /** Blocks until {@link #done}; returns how long it took (ms). */
    public long await() {
        long t0 = clock.getAsLong();
        while (!done()) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return clock.getAsLong() - t0;
    }
}
