package org.soaptestbed.clones;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

class ClientTimeTest {

    @SuppressWarnings("unchecked")
    private static Map<String, Object> times(Stats stats) {
        return (Map<String, Object>) stats.describe(Backend.values()[0]).get("client_time");
    }

    @Test
    void a_call_that_got_its_client_adds_its_wait_and_hold_times() {
        Stats stats = new Stats();
        ClientTime.asking();
        LockSupport.parkNanos(3_000_000);          // waiting for the lock
        ClientTime.obtained();
        long spin = System.nanoTime() + 5_000_000; // holding it, on the CPU
        while (System.nanoTime() < spin) {
            Thread.onSpinWait();
        }
        ClientTime.done(stats, Backend.values()[0]);
        Map<String, Object> t = times(stats);
        assertEquals(1L, t.get("calls"));
        assertTrue((Long) t.get("wait_ns") >= 3_000_000L, t.toString());
        assertTrue((Long) t.get("hold_ns") >= 5_000_000L, t.toString());
        assertTrue((Long) t.get("hold_cpu_ns") > 0L && (Long) t.get("hold_cpu_ns") <= (Long) t.get("hold_ns"),
                t.toString());
    }

    @Test
    void a_call_that_never_got_a_client_adds_nothing() {
        Stats stats = new Stats();
        ClientTime.asking();
        ClientTime.done(stats, Backend.values()[0]);
        assertEquals(0L, times(stats).get("calls"));
        assertEquals(0L, times(stats).get("hold_ns"));
    }
}
