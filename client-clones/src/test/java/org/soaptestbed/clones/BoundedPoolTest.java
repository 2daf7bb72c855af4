package org.soaptestbed.clones;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class BoundedPoolTest {

    private final AtomicInteger made = new AtomicInteger();
    private final List<Integer> closed = new ArrayList<>();

    private BoundedPool<Integer, IOException> pool(int capacity) {
        return new BoundedPool<>(capacity, made::incrementAndGet, closed::add);
    }

    @Test
    void never_creates_more_items_than_its_capacity() throws Exception {
        BoundedPool<Integer, IOException> p = pool(3);
        List<Integer> held = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            held.add(p.borrow(1000));
        }
        assertThrows(BoundedPool.Exhausted.class, () -> p.borrow(50));
        assertEquals(3, made.get());
        assertEquals(3, p.inUse());
        held.forEach(p::giveBack);
        for (int i = 0; i < 10; i++) {
            p.giveBack(p.borrow(1000));
        }
        assertEquals(3, made.get(), "returned items are reused, not re-created");
    }

    @Test
    void a_borrower_gives_up_after_its_timeout() throws Exception {
        BoundedPool<Integer, IOException> p = pool(1);
        p.borrow(1000);
        long t0 = System.nanoTime();
        BoundedPool.Exhausted e = assertThrows(BoundedPool.Exhausted.class, () -> p.borrow(200));
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue(waitedMs >= 150, "waited only " + waitedMs + " ms");
        assertTrue(e.getMessage().contains("1 items"), e.getMessage());
    }

    @Test
    void a_waiting_borrower_gets_the_item_given_back() throws Exception {
        BoundedPool<Integer, IOException> p = pool(1);
        Integer first = p.borrow(1000);
        ExecutorService ex = Executors.newSingleThreadExecutor();
        try {
            CountDownLatch waiting = new CountDownLatch(1);
            Future<Integer> second = ex.submit(() -> {
                waiting.countDown();
                return p.borrow(5000);
            });
            waiting.await();
            Thread.sleep(50);
            p.giveBack(first);
            assertSame(first, second.get(5, TimeUnit.SECONDS));
        } finally {
            ex.shutdownNow();
        }
    }

    @Test
    void a_failed_creation_frees_its_place() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        BoundedPool<Integer, IOException> p = new BoundedPool<>(1, () -> {
            if (attempts.incrementAndGet() == 1) {
                throw new IOException("service down");
            }
            return 7;
        }, closed::add);
        assertThrows(IOException.class, () -> p.borrow(100));
        assertEquals(0, p.inUse());
        assertEquals(7, p.borrow(100));
    }

    @Test
    void fill_creates_every_item_and_leaves_them_idle() throws Exception {
        BoundedPool<Integer, IOException> p = pool(4);
        p.fill(1000);
        assertEquals(4, p.created());
        assertEquals(4, p.idle());
        assertEquals(0, p.inUse());
        p.fill(1000);
        assertEquals(4, made.get(), "a full pool is not filled again");
    }

    @Test
    void discarded_and_closed_items_are_closed() throws Exception {
        BoundedPool<Integer, IOException> p = pool(2);
        Integer a = p.borrow(100);
        Integer b = p.borrow(100);
        p.discard(a);
        p.giveBack(b);
        p.close();
        assertEquals(List.of(a, b), closed);
        assertEquals(0, p.created());
        assertThrows(BoundedPool.Exhausted.class, () -> p.borrow(10));
    }

    @Test
    void a_capacity_below_one_is_refused() {
        assertThrows(IllegalArgumentException.class, () -> pool(0));
    }
}
