package org.soaptestbed.clones;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import org.soaptestbed.common.trace.Span;
import org.soaptestbed.common.trace.Tracer;

/**
 * How long one /invoke waited for a SOAP client and how long it held it: the lock holding
 * time of the singleton client (the monitor of {@link SingletonSoapClient#invoke}), a pooled
 * client's borrow-to-return time, a per-request client's build-and-call time — with the
 * calling thread's CPU time while it held the client (the stub's own CPU inside the lock).
 * A lifecycle calls {@link #obtained()} the moment the call has its client; {@link InvokeServlet}
 * brackets the call with {@link #asking} and {@link #done}. Per thread, so no lifecycle
 * needs a reference to the counters; the prediction model (docs/predict.md) reads the sums
 * from {@code GET /status}, Prometheus from JMX ({@link ClientTimeBean}: the same counters),
 * with the calls waiting now (BLOCKED on the singleton's monitor, or for a pooled client).
 */
final class ClientTime {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final boolean CPU = THREADS.isCurrentThreadCpuTimeSupported();
    private static final ThreadLocal<Call> CALL = ThreadLocal.withInitial(Call::new);
    /** The tag of the clone's SERVER span that holds the call's wait for its client, in µs. */
    static final String WAIT_TAG = "testbed.client_wait_us";

    /** This thread's call: asked at, obtained at (0: not yet), thread CPU when obtained, and
     *  whose waiting gauge it is counted in (null: none, or no longer). */
    private static final class Call {
        long asked;
        long obtained;
        long cpu;
        long released;       // 0: not yet (done() ends the hold then)
        long releasedCpu;
        Stats.PerBackend waiting;
    }

    private ClientTime() {
    }

    /** The call starts asking for a client of {@code backend}: it waits (counted) until obtained. */
    static void asking(Stats stats, Backend backend) {
        Call c = CALL.get();
        c.asked = System.nanoTime();
        c.obtained = 0;
        c.waiting = stats.of(backend);
        c.waiting.waiting.incrementAndGet();
    }

    /** The call now holds its client (inside the singleton's monitor, a borrowed pool client). */
    static void obtained() {
        Call c = CALL.get();
        c.obtained = System.nanoTime();
        c.cpu = CPU ? THREADS.getCurrentThreadCpuTime() : 0;
        c.released = 0;
        stopWaiting(c);
    }

    /** The call is giving its client back now (the last thing inside the singleton's monitor,
     *  before a pooled client's return): the hold ends here, not when {@link #done} runs later --
     *  a thread descheduled between the two would otherwise count time another call held the
     *  client. */
    static void released() {
        Call c = CALL.get();
        if (c.obtained != 0) {
            c.releasedCpu = CPU ? THREADS.getCurrentThreadCpuTime() : 0;   // CPU read inside the wall interval
            c.released = System.nanoTime();
        }
    }

    /** The call gave its client back: add its times to {@code stats}; a call that never had one
     *  (waited past its deadline, or none could be built) counts as not obtained. */
    static void done(Stats stats, Backend backend) {
        Call c = CALL.get();
        stopWaiting(c);
        waited(c.obtained == 0 ? System.nanoTime() - c.asked : c.obtained - c.asked);
        if (c.obtained == 0) {
            stats.notObtained(backend);
            return;
        }
        // the CPU clock read inside the wall-clock interval at both ends (obtained() reads the
        // wall clock first): the hold's CPU time never exceeds its wall time by a clock read
        long cpu, end;
        if (c.released != 0) {
            cpu = CPU ? c.releasedCpu - c.cpu : 0;
            end = c.released;
        } else {
            cpu = CPU ? THREADS.getCurrentThreadCpuTime() - c.cpu : 0;
            end = System.nanoTime();
        }
        stats.clientTime(backend, c.obtained - c.asked, end - c.obtained, cpu);
        c.obtained = 0;
        c.released = 0;
    }

    /** The request's trace, where it is traced: how long it waited for its client (the singleton's
     *  monitor, a pooled client), as the tag {@value #WAIT_TAG} of the clone's SERVER span — the
     *  clone's own time split into waiting and working (docs/tracing.md, "The anatomy of slow requests"). */
    private static void waited(long nanos) {
        Span span = Tracer.current();
        if (span != null) {
            span.tag(WAIT_TAG, Math.max(0L, nanos / 1000L));
        }
    }

    private static void stopWaiting(Call c) {
        if (c.waiting != null) {
            c.waiting.waiting.decrementAndGet();
            c.waiting = null;
        }
    }
}
