package org.soaptestbed.common;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class DrainTest {
    private final AtomicLong now = new AtomicLong(100_000);
    private final Drain drain = new Drain(now::get);

    private void at(long ms) {
        now.set(100_000 + ms);
    }

    @Test
    void aTierNoBalancerWatchesStopsAtOnce() {
        drain.requestArrived();
        drain.begin();
        assertTrue(drain.done());
    }

    @Test
    void aWatchedTierServesUntilTheBalancerWasToldAndTheRequestsStopped() {
        assertFalse(drain.healthChecked());          // in rotation: "ok"
        at(500);
        drain.begin();
        assertFalse(drain.done());                    // nobody was told yet
        at(900);
        drain.requestArrived();                       // HAProxy still sends
        at(1_200);
        assertTrue(drain.healthChecked());            // answered "draining": out of rotation
        assertFalse(drain.done());                    // the last request was 300 ms ago
        at(1_200 + 700 + Drain.QUIET_MS - 500);
        assertTrue(drain.done());
    }

    @Test
    void whenTheChecksStopComingTheBalancerIsGoneAndDrainingEnds() {
        drain.healthChecked();
        at(800);
        drain.begin();
        at(Drain.CHECKS_GONE_MS - 1);
        assertFalse(drain.done());
        at(Drain.CHECKS_GONE_MS);
        assertTrue(drain.done());
    }

    @Test
    void drainingNeverTakesLongerThanItsMaximum() {
        drain.healthChecked();
        drain.begin();
        for (long t = 0; t < Drain.MAX_MS; t += 100) {
            at(t);
            drain.requestArrived();                   // requests never stop coming
            drain.healthChecked();
            assertFalse(drain.done());
        }
        at(Drain.MAX_MS);
        assertTrue(drain.done());
    }
}
