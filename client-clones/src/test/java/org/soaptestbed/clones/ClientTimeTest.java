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
        ClientTime.asking(stats, Backend.values()[0]);
        assertEquals(1, times(stats).get("waiting"));
        LockSupport.parkNanos(3_000_000);          // waiting for the lock
        ClientTime.obtained();
        assertEquals(0, times(stats).get("waiting"));
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
    void a_call_that_never_got_a_client_adds_no_time_stops_waiting_and_counts_as_not_obtained() {
        Stats stats = new Stats();
        ClientTime.asking(stats, Backend.values()[0]);
        ClientTime.done(stats, Backend.values()[0]);
        assertEquals(0L, times(stats).get("calls"));
        assertEquals(0L, times(stats).get("hold_ns"));
        assertEquals(0, times(stats).get("waiting"));
        assertEquals(1L, times(stats).get("not_obtained"));
    }

    @Test
    void a_thread_blocked_on_the_singletons_monitor_is_counted_waiting_until_it_gets_in() throws Exception {
        Stats stats = new Stats();
        Backend b = Backend.values()[0];
        Object monitor = new Object();
        java.util.concurrent.CountDownLatch in = new java.util.concurrent.CountDownLatch(1);
        Thread waiter;
        synchronized (monitor) {
            waiter = new Thread(() -> {
                ClientTime.asking(stats, b);
                synchronized (monitor) {
                    ClientTime.obtained();
                }
                ClientTime.done(stats, b);
                in.countDown();
            });
            waiter.start();
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (waiter.getState() != Thread.State.BLOCKED && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertEquals(Thread.State.BLOCKED, waiter.getState());
            assertEquals(1, times(stats).get("waiting"), "the BLOCKED thread is the one waiting");
        }
        assertTrue(in.await(5, java.util.concurrent.TimeUnit.SECONDS));
        assertEquals(0, times(stats).get("waiting"));
        assertEquals(1L, times(stats).get("calls"));
    }

    @Test
    void the_hold_ends_when_the_client_is_released_not_when_the_call_is_done() {
        Stats stats = new Stats();
        Backend b = Backend.values()[0];
        ClientTime.asking(stats, b);
        long before = System.nanoTime();
        ClientTime.obtained();
        ClientTime.released();
        long released = System.nanoTime();
        LockSupport.parkNanos(20_000_000);         // after the release: another call's hold, not this one's
        ClientTime.done(stats, b);
        Map<String, Object> t = times(stats);
        assertEquals(1L, t.get("calls"));
        assertTrue((Long) t.get("hold_ns") <= released - before, t.toString());
        assertTrue((Long) t.get("hold_cpu_ns") <= (Long) t.get("hold_ns"), t.toString());
    }
}
