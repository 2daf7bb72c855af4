package org.soaptestbed.common;

import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.apache.tomcat.util.threads.ThreadPoolExecutor;

/**
 * {@link RequestQueueMXBean} over the connector's executor, looked up at each read (Tomcat
 * creates it when the connector starts). Tomcat's executor is its own ThreadPoolExecutor (not
 * java.util.concurrent's); another kind reads as zeros.
 */
final class RequestQueue implements RequestQueueMXBean {

    private final Supplier<Executor> executor;

    RequestQueue(Supplier<Executor> executor) {
        this.executor = executor;
    }

    private ThreadPoolExecutor pool() {
        return executor.get() instanceof ThreadPoolExecutor tpe ? tpe : null;
    }

    @Override
    public int getQueuedRequests() {
        ThreadPoolExecutor p = pool();
        return p == null ? 0 : p.getQueue().size();
    }

    @Override
    public int getBusyThreads() {
        ThreadPoolExecutor p = pool();
        return p == null ? 0 : p.getActiveCount();
    }

    @Override
    public int getMaxThreads() {
        ThreadPoolExecutor p = pool();
        return p == null ? 0 : p.getMaximumPoolSize();
    }
}
