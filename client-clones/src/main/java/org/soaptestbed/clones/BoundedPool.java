package org.soaptestbed.clones;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A bounded pool: at most {@code capacity} items exist, and at most that many are lent out.
 * A borrower waits up to a timeout for a free item, then gives up. Items are created on
 * demand (a permit but no idle item: the borrower creates one), so a pool whose first
 * creations failed (service down at start-up) fills up later by itself.
 *
 * @param <T> the pooled item
 * @param <E> what creating an item may throw
 */
public final class BoundedPool<T, E extends Exception> implements AutoCloseable {

    /** Creates one item. */
    @FunctionalInterface
    public interface Factory<T, E extends Exception> {
        T create() throws E;
    }

    /** No item became free within the timeout. */
    public static final class Exhausted extends Exception {
        private static final long serialVersionUID = 1L;

        Exhausted(String message) {
            super(message);
        }
    }

    private final int capacity;
    private final Factory<T, E> factory;
    private final Consumer<T> closer;
    private final Semaphore permits;
    private final ConcurrentLinkedDeque<T> idle = new ConcurrentLinkedDeque<>();
    private final AtomicInteger created = new AtomicInteger();
    private volatile boolean closed;

    public BoundedPool(int capacity, Factory<T, E> factory, Consumer<T> closer) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, not " + capacity);
        }
        this.capacity = capacity;
        this.factory = factory;
        this.closer = closer;
        this.permits = new Semaphore(capacity, true);   // fair: borrowers are served in order
    }

    /**
     * An item for the caller's exclusive use until {@link #giveBack} or {@link #discard}.
     *
     * @throws Exhausted when none became free within {@code timeoutMs}
     * @throws E         when a new item had to be created and creating it failed
     */
    public T borrow(long timeoutMs) throws Exhausted, InterruptedException, E {
        if (closed) {
            throw new Exhausted("the pool is closed");
        }
        if (!permits.tryAcquire(timeoutMs, TimeUnit.MILLISECONDS)) {
            throw new Exhausted("all " + capacity + " items stayed in use for " + timeoutMs + " ms");
        }
        T item = idle.pollFirst();
        if (item != null) {
            return item;
        }
        boolean made = false;
        try {
            item = factory.create();
            made = true;
        } finally {
            if (!made) {
                permits.release();
            }
        }
        created.incrementAndGet();
        return item;
    }

    /** Returns a borrowed item for the next borrower (most recently used first). */
    public void giveBack(T item) {
        if (closed) {
            closeItem(item);
        } else {
            idle.addFirst(item);
        }
        permits.release();
    }

    /** A borrowed item that must not be used again: closed, and its place freed. */
    public void discard(T item) {
        closeItem(item);
        permits.release();
    }

    /**
     * Creates items until the pool holds {@code capacity} (start-up). Stops at the first
     * failure, which it throws; the items created so far stay.
     */
    public void fill(long timeoutMs) throws Exhausted, InterruptedException, E {
        List<T> held = new ArrayList<>();
        try {
            while (created.get() < capacity) {
                held.add(borrow(timeoutMs));
            }
        } finally {
            held.forEach(this::giveBack);
        }
    }

    public int capacity() {
        return capacity;
    }

    /** Items that exist (idle or lent out). */
    public int created() {
        return created.get();
    }

    public int idle() {
        return idle.size();
    }

    /** Items lent out now. */
    public int inUse() {
        return capacity - permits.availablePermits();
    }

    /** Closes the idle items; items lent out are closed when they come back. */
    @Override
    public void close() {
        closed = true;
        for (T item = idle.pollFirst(); item != null; item = idle.pollFirst()) {
            closeItem(item);
        }
    }

    private void closeItem(T item) {
        created.decrementAndGet();
        closer.accept(item);
    }
}
