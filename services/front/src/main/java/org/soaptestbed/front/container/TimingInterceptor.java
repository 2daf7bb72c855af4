package org.soaptestbed.front.container;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Outermost interceptor: times every call of every business method, pool wait included,
 * and counts the calls that threw.
 */
public final class TimingInterceptor implements Interceptor {

    private final Map<String, CallStats> stats = new ConcurrentHashMap<>();

    @Override
    public Object invoke(Invocation call) throws Exception {
        CallStats s = stats.computeIfAbsent(call.method().getName(), k -> new CallStats());
        long t0 = System.nanoTime();
        boolean failed = true;
        try {
            Object result = call.proceed();
            failed = false;
            return result;
        } finally {
            s.record(System.nanoTime() - t0, failed);
        }
    }

    /** Business method name -> its counters (a live view). */
    public Map<String, CallStats> stats() {
        return stats;
    }
}
