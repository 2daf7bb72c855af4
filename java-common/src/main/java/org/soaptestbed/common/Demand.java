package org.soaptestbed.common;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One synthetic demand point (docs/tiers.md, "Synthetic demand knobs"), read once:
 *
 * <pre>
 * DEMAND_&lt;POINT&gt;_CPU_US   0  CPU busy time added per request, in µs of the thread's own CPU time
 * DEMAND_&lt;POINT&gt;_WAIT_US  0  wait (sleep) added per request, in µs
 * DEMAND_&lt;POINT&gt;_LOCKED   0  1: taken while holding the one process-wide lock
 * </pre>
 *
 * <p>Order inside one demand: take the lock if LOCKED, burn the CPU time, sleep the wait,
 * release. Every point of a process shares the same lock.
 */
public final class Demand {

    /** Longest CPU or wait time one knob (or one work call) may ask for: 60 s. */
    public static final long MAX_MICROS = 60_000_000L;

    private static final ReentrantLock PROCESS_LOCK = new ReentrantLock();
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final boolean THREAD_CPU = THREADS.isCurrentThreadCpuTimeSupported();
    private static volatile long sink;   // keeps the burn loop from being optimised away

    private final String point;
    private final long cpuMicros;
    private final long waitMicros;
    private final boolean locked;

    public Demand(String point, long cpuMicros, long waitMicros, boolean locked) {
        this.point = point;
        this.cpuMicros = cpuMicros;
        this.waitMicros = waitMicros;
        this.locked = locked;
    }

    /** Reads DEMAND_&lt;point&gt;_CPU_US, _WAIT_US and _LOCKED. */
    public static Demand fromEnv(Env env, String point) {
        String prefix = "DEMAND_" + point + "_";
        return new Demand(point,
                env.longInteger(prefix + "CPU_US", 0, 0, MAX_MICROS),
                env.longInteger(prefix + "WAIT_US", 0, 0, MAX_MICROS),
                env.flag(prefix + "LOCKED", false));
    }

    public boolean isZero() {
        return cpuMicros == 0 && waitMicros == 0;
    }

    /** Takes this point's demand in the calling thread. */
    public void apply() {
        if (isZero()) {
            return;
        }
        if (!locked) {
            burn(cpuMicros);
            sleepMicros(waitMicros);
            return;
        }
        PROCESS_LOCK.lock();
        try {
            burn(cpuMicros);
            sleepMicros(waitMicros);
        } finally {
            PROCESS_LOCK.unlock();
        }
    }

    /**
     * Keeps the calling thread busy until it has used {@code cpuMicros} of its own CPU time
     * (wall-clock time where the JVM cannot measure thread CPU time).
     */
    public static void burn(long cpuMicros) {
        if (cpuMicros <= 0) {
            return;
        }
        long x = sink;
        if (THREAD_CPU) {
            long end = THREADS.getCurrentThreadCpuTime() + cpuMicros * 1000;
            while (THREADS.getCurrentThreadCpuTime() < end) {
                x = spin(x);
            }
        } else {
            long end = System.nanoTime() + cpuMicros * 1000;
            while (System.nanoTime() < end) {
                x = spin(x);
            }
        }
        sink = x;
    }

    /** About a microsecond of arithmetic between two clock reads. */
    private static long spin(long x) {
        for (int i = 0; i < 200; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        return x;
    }

    /**
     * Sleeps about that long (parkNanos: Thread.sleep(ms, ns) of JDK 17 rounds any sub-millisecond
     * wait up to a whole millisecond); an interrupt ends the sleep early and stays set.
     */
    public static void sleepMicros(long micros) {
        long deadline = System.nanoTime() + micros * 1_000;
        for (long left = micros * 1_000; left > 0 && !Thread.currentThread().isInterrupted();
                left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(left);        // may return early (spuriously): park again
        }
    }

    /** The effective values, named like their variables, for the start-up log line. */
    public Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("DEMAND_" + point + "_CPU_US", cpuMicros);
        m.put("DEMAND_" + point + "_WAIT_US", waitMicros);
        m.put("DEMAND_" + point + "_LOCKED", locked ? 1 : 0);
        return m;
    }

    public long cpuMicros() {
        return cpuMicros;
    }

    public long waitMicros() {
        return waitMicros;
    }

    public boolean locked() {
        return locked;
    }
}
