package org.soaptestbed.clones;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * How long one /invoke waited for a SOAP client and how long it held it: the lock holding
 * time of the singleton client (the monitor of {@link SingletonSoapClient#invoke}), a pooled
 * client's borrow-to-return time, a per-request client's build-and-call time — with the
 * calling thread's CPU time while it held the client (the stub's own CPU inside the lock).
 * A lifecycle calls {@link #obtained()} the moment the call has its client; {@link InvokeServlet}
 * brackets the call with {@link #asking()} and {@link #done}. Per thread, so no lifecycle
 * needs a reference to the counters; the prediction model (docs/predict.md) reads the sums
 * from {@code GET /status}.
 */
final class ClientTime {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final boolean CPU = THREADS.isCurrentThreadCpuTimeSupported();
    /** [asked at, obtained at (0: not yet), thread CPU when obtained] of this thread's call. */
    private static final ThreadLocal<long[]> CALL = ThreadLocal.withInitial(() -> new long[3]);

    private ClientTime() {
    }

    static void asking() {
        long[] c = CALL.get();
        c[0] = System.nanoTime();
        c[1] = 0;
    }

    /** The call now holds its client (inside the singleton's monitor, a borrowed pool client). */
    static void obtained() {
        long[] c = CALL.get();
        c[1] = System.nanoTime();
        c[2] = CPU ? THREADS.getCurrentThreadCpuTime() : 0;
    }

    /** The call gave its client back: add its times to {@code stats} (nothing if it never had one). */
    static void done(Stats stats, Backend backend) {
        long[] c = CALL.get();
        if (c[1] == 0) {
            return;
        }
        long now = System.nanoTime();
        long cpu = CPU ? THREADS.getCurrentThreadCpuTime() - c[2] : 0;
        stats.clientTime(backend, c[1] - c[0], now - c[1], cpu);
        c[1] = 0;
    }
}
