package org.soaptestbed.clones;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The tier's counters for {@code GET /status}: per backend, how many WSDLs were fetched and
 * parsed (the cost the client lifecycles trade), calls and errors; overall, calls in flight.
 */
public final class Stats {

    /** Counters of one backend. */
    public static final class PerBackend {
        final LongAdder wsdlLoads = new LongAdder();
        final LongAdder wsdlFailures = new LongAdder();
        final LongAdder wsdlNanos = new LongAdder();
        final LongAdder calls = new LongAdder();
        final LongAdder errors = new LongAdder();
        final AtomicLong clientsOpen = new AtomicLong();
        final LongAdder timedCalls = new LongAdder();
        final LongAdder waitNanos = new LongAdder();
        final LongAdder holdNanos = new LongAdder();
        final LongAdder holdCpuNanos = new LongAdder();

        public long wsdlLoads() {
            return wsdlLoads.sum();
        }
    }

    private final Map<Backend, PerBackend> backends = new EnumMap<>(Backend.class);
    private final AtomicLong inFlight = new AtomicLong();
    private final LongAdder badRequests = new LongAdder();

    public Stats() {
        for (Backend b : Backend.values()) {
            backends.put(b, new PerBackend());
        }
    }

    public PerBackend of(Backend b) {
        return backends.get(b);
    }

    /** A WSDL was fetched and parsed into a client's service description. */
    void wsdlLoaded(Backend b, long nanos) {
        of(b).wsdlLoads.increment();
        of(b).wsdlNanos.add(nanos);
    }

    void wsdlFailed(Backend b) {
        of(b).wsdlFailures.increment();
    }

    void clientOpened(Backend b) {
        of(b).clientsOpen.incrementAndGet();
    }

    void clientClosed(Backend b) {
        of(b).clientsOpen.decrementAndGet();
    }

    /** An /invoke reached a backend call; {@code ok} false when it ended in an error. */
    void called(Backend b, boolean ok) {
        of(b).calls.increment();
        if (!ok) {
            of(b).errors.increment();
        }
    }

    /** A call waited {@code wait} ns for its client, held it {@code hold} ns, using {@code cpu} ns
     *  of its thread's CPU meanwhile ({@link ClientTime}). */
    void clientTime(Backend b, long wait, long hold, long cpu) {
        PerBackend p = of(b);
        p.timedCalls.increment();
        p.waitNanos.add(wait);
        p.holdNanos.add(hold);
        p.holdCpuNanos.add(cpu);
    }

    void badRequest() {
        badRequests.increment();
    }

    void enter() {
        inFlight.incrementAndGet();
    }

    void leave() {
        inFlight.decrementAndGet();
    }

    public long wsdlLoads() {
        return backends.values().stream().mapToLong(p -> p.wsdlLoads.sum()).sum();
    }

    public long calls() {
        return backends.values().stream().mapToLong(p -> p.calls.sum()).sum();
    }

    public long errors() {
        return backends.values().stream().mapToLong(p -> p.errors.sum()).sum();
    }

    public long inFlight() {
        return inFlight.get();
    }

    public long badRequests() {
        return badRequests.sum();
    }

    /** The per-backend part of /status. */
    public Map<String, Object> describe(Backend b) {
        PerBackend p = of(b);
        long loads = p.wsdlLoads.sum();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("wsdl_loads", loads);
        m.put("wsdl_failures", p.wsdlFailures.sum());
        m.put("wsdl_load_ms_mean", loads == 0 ? null : Math.round(p.wsdlNanos.sum() / 1e4 / loads) / 100.0);
        m.put("calls", p.calls.sum());
        m.put("errors", p.errors.sum());
        m.put("clients_open", p.clientsOpen.get());
        Map<String, Object> t = new LinkedHashMap<>();    // cumulative: rates come from differences
        t.put("calls", p.timedCalls.sum());
        t.put("wait_ns", p.waitNanos.sum());
        t.put("hold_ns", p.holdNanos.sum());
        t.put("hold_cpu_ns", p.holdCpuNanos.sum());
        m.put("client_time", t);
        return m;
    }
}
