package org.soaptestbed.clones;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.rmi.RemoteException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code POST /probe/build?backend=axis&n=500&threads=2&seconds=10}: builds up to {@code n}
 * clients of a backend exactly as a per-request client does on every call — its own HTTP
 * transport, the WSDL fetched and parsed, the stub created — and closes each at once, without
 * calling the service; on {@code threads} threads, for at most {@code seconds}. What the
 * prediction model cannot see in a singleton baseline (docs/predict.md): the runner measures
 * the per-call build's CPU on every tier around this, whatever the clone's own mode.
 *
 * <p>{@code calls=1} or {@code 2}: each client then sends that many pings before it is closed,
 * and the answer adds the building thread's CPU of each ({@code call_cpu_ms_median}: the first
 * call on a fresh client, then the second) — what a per-request call costs the clone beyond a
 * singleton's, which never makes a first call again.
 *
 * <pre>
 * {"backend", "requested", "built", "failed", "threads", "wall_s", "cpu_s", "build_ms_median",
 *  "call_cpu_ms_median": [first, second] with calls, "gc_collections", "gc_time_ns",
 *  "error": the first failure's message, or absent}
 * </pre>
 * cpu_s sums the building threads' CPU time; gc_* are the JVM's collections during the probe and
 * their time ({@link GcTime}: the part of the clone's CPU a round's garbage cost its collector). One probe at a time (409 while one runs);
 * parameters out of range answer 400 naming the range. Mounted behind the stack's admin token
 * (CloneMain, {@code org.soaptestbed.common.AdminGate}): without it, 403 and nothing runs.
 */
final class BuildProbeServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    static final int MAX_BUILDS = 5000;
    static final int MAX_THREADS = 64;
    static final int MAX_SECONDS = 60;
    static final int MAX_CALLS = 2;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** The call of {@code calls=1|2}: the smallest operation, so the call is the client's own cost. */
    private static final SoapCall PING = SoapCall.prepare(new InvokeRequest(Backend.AXIS, "ping", 0, 0L, 0L, 0L));

    private final transient CloneConfig config;
    private final transient ClientFactory factory;
    private final transient AtomicBoolean running = new AtomicBoolean();

    BuildProbeServlet(CloneConfig config, ClientFactory factory) {
        this.config = config;
        this.factory = factory;
    }

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        Backend backend = Backend.find(req.getParameter("backend") == null ? "axis" : req.getParameter("backend"));
        if (backend == null || backend == Backend.OWN && config.own() == null) {
            InvokeServlet.send(resp, 400, Map.of("error", "backend must be axis or gsoap"
                    + (config.own() == null ? "" : " or own")));
            return;
        }
        int n;
        int threads;
        int seconds;
        int calls;
        try {
            n = bounded(req.getParameter("n"), 100, 1, MAX_BUILDS, "n");
            threads = bounded(req.getParameter("threads"), 1, 1, MAX_THREADS, "threads");
            seconds = bounded(req.getParameter("seconds"), 10, 1, MAX_SECONDS, "seconds");
            calls = bounded(req.getParameter("calls"), 0, 0, MAX_CALLS, "calls");
        } catch (IllegalArgumentException e) {
            InvokeServlet.send(resp, 400, Map.of("error", e.getMessage()));
            return;
        }
        if (!running.compareAndSet(false, true)) {
            InvokeServlet.send(resp, 409, Map.of("error", "a build probe is running already"));
            return;
        }
        try {
            InvokeServlet.send(resp, 200, probe(backend, n, threads, seconds, calls));
        } finally {
            running.set(false);
        }
    }

    private static int bounded(String value, int dflt, int min, int max, String name) {
        if (value == null || value.isEmpty()) {
            return dflt;
        }
        int v;
        try {
            v = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be an integer from " + min + " to " + max, e);
        }
        if (v < min || v > max) {
            throw new IllegalArgumentException(name + " must be from " + min + " to " + max + ", not " + v);
        }
        return v;
    }

    private Map<String, Object> probe(Backend backend, int n, int threads, int seconds, int calls) {
        // the call of calls=1|2: ping for the contract's services; for your own, its operation with no items
        SoapCall call = backend == Backend.OWN ? SoapCall.own(config.own(), 0) : PING;
        AtomicInteger next = new AtomicInteger();
        AtomicInteger built = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        AtomicLong cpu = new AtomicLong();
        AtomicReference<String> error = new AtomicReference<>();
        List<Long> walls = Collections.synchronizedList(new ArrayList<>());
        List<List<Long>> callCpu = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            callCpu.add(Collections.synchronizedList(new ArrayList<>()));
        }
        Map<String, Object> gcBefore = GcTime.describe();
        long start = System.nanoTime();
        long deadline = start + seconds * 1_000_000_000L;
        Runnable builder = () -> {
            while (System.nanoTime() < deadline && next.getAndIncrement() < n) {
                long c0 = THREADS.getCurrentThreadCpuTime();
                long t0 = System.nanoTime();
                HttpTransport transport = new HttpTransport(1, config.soapTimeoutMs(), false);
                try {
                    SoapClient client = factory.build(backend, transport, true);
                    try {
                        for (int i = 0; i < calls; i++) {
                            long c = THREADS.getCurrentThreadCpuTime();
                            client.send(call);
                            callCpu.get(i).add(THREADS.getCurrentThreadCpuTime() - c);
                        }
                    } finally {
                        client.close();   // closes the transport too
                    }
                    built.incrementAndGet();
                    walls.add(System.nanoTime() - t0);
                } catch (ClientFactory.BuildFailed | RemoteException | RuntimeException e) {
                    transport.close();
                    failed.incrementAndGet();
                    error.compareAndSet(null, e.getMessage());
                }
                cpu.addAndGet(THREADS.getCurrentThreadCpuTime() - c0);
            }
        };
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(builder, "build-probe-" + i);
            t.setDaemon(true);
            t.start();
            workers.add(t);
        }
        for (Thread t : workers) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        double wall = (System.nanoTime() - start) / 1e9;
        Map<String, Object> gcAfter = GcTime.describe();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("backend", backend.label());
        body.put("requested", n);
        body.put("built", built.get());
        body.put("failed", failed.get());
        body.put("threads", threads);
        body.put("wall_s", wall);
        body.put("cpu_s", cpu.get() / 1e9);
        body.put("build_ms_median", medianMs(walls));
        if (calls > 0) {
            List<Double> medians = new ArrayList<>();
            for (List<Long> cpus : callCpu) {
                medians.add(medianMs(cpus));
            }
            body.put("call_cpu_ms_median", medians);
        }
        body.put("gc_collections", (Long) gcAfter.get("collections") - (Long) gcBefore.get("collections"));
        body.put("gc_time_ns", (Long) gcAfter.get("time_ns") - (Long) gcBefore.get("time_ns"));
        if (error.get() != null) {
            body.put("error", error.get());
        }
        return body;
    }

    /** The median of nanosecond figures, in ms; null when there is none. */
    private static Double medianMs(List<Long> nanos) {
        List<Long> sorted;
        synchronized (nanos) {
            sorted = new ArrayList<>(nanos);
        }
        Collections.sort(sorted);
        return sorted.isEmpty() ? null : sorted.get(sorted.size() / 2) / 1e6;
    }
}
