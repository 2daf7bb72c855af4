package org.soaptestbed.front.container;

import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/** Counters of one business method, kept by the {@link TimingInterceptor}. */
public final class CallStats {

    private final LongAdder calls = new LongAdder();
    private final LongAdder failures = new LongAdder();
    private final LongAdder totalNanos = new LongAdder();
    private final LongAccumulator maxNanos = new LongAccumulator(Math::max, 0);

    void record(long nanos, boolean failed) {
        calls.increment();
        if (failed) {
            failures.increment();
        }
        totalNanos.add(nanos);
        maxNanos.accumulate(nanos);
    }

    public long calls() {
        return calls.sum();
    }

    public long failures() {
        return failures.sum();
    }

    public double meanMicros() {
        long n = calls.sum();
        return n == 0 ? 0.0 : totalNanos.sum() / 1000.0 / n;
    }

    public double maxMicros() {
        return maxNanos.get() / 1000.0;
    }

    @Override
    public String toString() {
        return String.format("calls=%d failures=%d mean=%.0fus max=%.0fus",
                calls(), failures(), meanMicros(), maxMicros());
    }
}
