package org.soaptestbed.front.container;

import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * A bounded pool of stateless bean instances, each serving one call at a time.
 *
 * <p>All {@code size} instances are created when the bean is deployed and numbered 1..size.
 * A call takes a permit of a fair semaphore (callers wait in arrival order) for at most
 * {@code timeoutMs}, then the most recently returned idle instance (LIFO keeps a few
 * instances hot under light load, as application servers do); it gives both back after
 * the call. The number of permits equals the number of idle instances at all times.
 */
public final class BeanPool {

    /** One pooled instance and its id. */
    public record Instance(int id, Object bean) {
    }

    private final String beanName;
    private final int size;
    private final long timeoutMs;
    private final Semaphore permits;
    private final ConcurrentLinkedDeque<Instance> idle = new ConcurrentLinkedDeque<>();
    private final LongAdder timeouts = new LongAdder();

    /**
     * @param factory makes one bean instance; a {@link PooledBean} then gets its context
     */
    public BeanPool(String beanName, int size, long timeoutMs, Supplier<?> factory) {
        if (size < 1) {
            throw new IllegalArgumentException(beanName + ": pool size must be at least 1, got " + size);
        }
        if (timeoutMs < 0) {
            throw new IllegalArgumentException(beanName + ": pool timeout must be >= 0 ms, got " + timeoutMs);
        }
        this.beanName = beanName;
        this.size = size;
        this.timeoutMs = timeoutMs;
        for (int id = 1; id <= size; id++) {
            Object bean = factory.get();
            if (bean instanceof PooledBean pooled) {
                pooled.setBeanContext(new BeanContext(beanName, id));
            }
            idle.addLast(new Instance(id, bean));
        }
        this.permits = new Semaphore(size, true);
    }

    /** Waits up to the pool's timeout for a free instance. */
    public Instance acquire() {
        boolean got;
        try {
            got = permits.tryAcquire(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            got = false;
        }
        if (!got) {
            timeouts.increment();
            throw new PoolTimeoutException(beanName, size, timeoutMs);
        }
        Instance instance = idle.pollFirst();
        if (instance == null) {       // cannot happen while permits == idle instances
            permits.release();
            throw new IllegalStateException(beanName + ": pool permit without an idle instance");
        }
        return instance;
    }

    /** Gives an instance back after its call. */
    public void release(Instance instance) {
        idle.offerFirst(instance);
        permits.release();
    }

    public String beanName() {
        return beanName;
    }

    public int size() {
        return size;
    }

    public long timeoutMs() {
        return timeoutMs;
    }

    /** Instances serving a call right now. */
    public int inUse() {
        return size - permits.availablePermits();
    }

    /** Calls that gave up waiting for an instance since deployment. */
    public long timeouts() {
        return timeouts.sum();
    }
}
