package org.soaptestbed.clones;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LockTimerTest {

    @Test
    void a_waiter_is_counted_until_it_gets_the_lock_and_its_wait_and_hold_are_summed() throws Exception {
        LockTimer timer = new LockTimer();
        Object monitor = new Object();
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            long at = timer.arrive();
            synchronized (monitor) {
                long in = timer.acquired(at);
                holding.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                timer.released(in);
            }
        });
        holder.start();
        assertTrue(holding.await(5, TimeUnit.SECONDS));
        Thread waiter = new Thread(() -> {
            long at = timer.arrive();
            synchronized (monitor) {
                timer.released(timer.acquired(at));
            }
        });
        waiter.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (waiter.getState() != Thread.State.BLOCKED && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertEquals(Thread.State.BLOCKED, waiter.getState());
        assertEquals(1, timer.getWaitingThreads(), "the BLOCKED thread is the one waiting");
        Thread.sleep(50);
        release.countDown();
        holder.join(5000);
        waiter.join(5000);
        assertEquals(0, timer.getWaitingThreads());
        assertEquals(2, timer.getAcquisitions());
        assertTrue(timer.getWaitSeconds() >= 0.045, "the waiter waited about 50 ms: " + timer.getWaitSeconds());
        assertTrue(timer.getHeldSeconds() >= 0.045, "the holder held about 50 ms: " + timer.getHeldSeconds());
        assertEquals(0, timer.getTimeouts());
    }

    @Test
    void a_waiter_that_gives_up_leaves_the_count_and_is_a_timeout_not_an_acquisition() {
        LockTimer timer = new LockTimer();
        long at = timer.arrive();
        assertEquals(1, timer.getWaitingThreads());
        timer.gaveUp(at);
        assertEquals(0, timer.getWaitingThreads());
        assertEquals(1, timer.getTimeouts());
        assertEquals(0, timer.getAcquisitions());
        assertEquals(0.0, timer.getHeldSeconds());
        assertEquals(0, ((Number) timer.describe().get("acquisitions")).longValue());
    }
}
