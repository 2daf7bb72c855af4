package org.soaptestbed.common.trace;

import java.net.URI;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The Java tiers' tracing (docs/tracing.md): a trace starts at Locust and only there; a tier
 * records spans only below a {@code traceparent} whose sampled flag is set, and sends them to
 * Zipkin. Everything else costs one header look-up at the server ({@link TraceFilter}) and a
 * thread-local read where a span could start.
 *
 * <p>On when the JVM has {@code -Dtestbed.zipkin.spans=URL} (Zipkin's {@code /api/v2/spans},
 * set by java-common/bin/java-tier when ZIPKIN_URL resolves) and {@code -Dtestbed.service=NAME}
 * (the tier, Zipkin's service name); off otherwise, and then no filter is installed and every
 * method here returns at once.
 *
 * <p>The rule for an incoming context (W3C Trace Context level 1, the same at every tier and in
 * HAProxy): exactly one {@code traceparent} header ({@link TraceFilter} counts them), its value
 * {@code 00-<32 hex>-<16 hex>-<2 hex>}, lower-case hex, neither id all zeros. Anything else is
 * not continued: no span, and the calls the tier makes carry no {@code traceparent} (none is
 * forwarded as it came; a forwarded one is always this tier's own span's). Sampled requests are
 * recorded at most {@link RateCap#KNOB} a second per process: beyond, the request is served
 * untraced, counted ({@link #capped()}, logged by the exporter).
 */
public final class Tracer {

    private static final ThreadLocal<Span> CURRENT = new ThreadLocal<>();
    private static volatile ZipkinExporter exporter = fromSystemProperties();
    private static volatile RateCap cap = RateCap.fromKnob();
    private static final AtomicLong CAPPED = new AtomicLong();

    /** A valid incoming context: its trace id, its parent span id, whether it is sampled. */
    record Context(String traceId, String parentId, boolean sampled) {
    }

    private Tracer() {
    }

    private static ZipkinExporter fromSystemProperties() {
        String url = System.getProperty("testbed.zipkin.spans", "");
        if (url.isBlank()) {
            return null;
        }
        return ZipkinExporter.start(URI.create(url), System.getProperty("testbed.service", "java"));
    }

    public static boolean enabled() {
        return exporter != null;
    }

    /** Turns tracing on with this exporter (null: off). For tests and the properties above. */
    static void use(ZipkinExporter e) {
        exporter = e;
    }

    /** Replaces the rate cap (tests). */
    static void cap(RateCap c) {
        cap = c;
    }

    /** The cap: sampled requests recorded a second, at most. */
    static double capPerSecond() {
        return cap.perSecond();
    }

    /** Sampled requests served untraced because of the rate cap, since the start. */
    public static long capped() {
        return CAPPED.get();
    }

    /** The span current on this thread, or null (untraced request, or tracing off). */
    public static Span current() {
        return exporter == null ? null : CURRENT.get();
    }

    /**
     * A SERVER span, made current, when {@code traceparent} (the request's only one) is a valid
     * W3C header with the sampled flag and the rate cap allows; null otherwise (and for every
     * request while tracing is off).
     */
    public static Span server(String traceparent, String name) {
        if (exporter == null || traceparent == null) {
            return null;
        }
        Context c = parse(traceparent);
        if (c == null || !c.sampled()) {
            return null;
        }
        if (!cap.tryAcquire()) {
            CAPPED.incrementAndGet();
            return null;
        }
        return begin(new Span(c.traceId(), newId(), c.parentId(), name, Span.Kind.SERVER, CURRENT.get()));
    }

    /** A child of the current span (kind null for a method), made current; null without one. */
    public static Span child(String name, Span.Kind kind) {
        Span parent = current();
        if (parent == null) {
            return null;
        }
        return begin(new Span(parent.traceId(), newId(), parent.id(), name, kind, parent));
    }

    /** The header to send with a call made now on this thread, or null when untraced. */
    public static String traceparent() {
        Span s = current();
        return s == null ? null : s.traceparent();
    }

    private static Span begin(Span s) {
        CURRENT.set(s);
        return s;
    }

    static void ended(Span s) {
        if (CURRENT.get() == s) {
            if (s.previous() == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(s.previous());
            }
        }
        ZipkinExporter e = exporter;
        if (e != null) {
            e.offer(s);
        }
    }

    /**
     * The context of a {@code traceparent} value, or null when it is not exactly
     * {@code 00-<32 hex>-<16 hex>-<2 hex>} in lower-case hex with ids not all zero (nothing
     * trimmed, no other version: level 1 as the testbed applies it).
     */
    static Context parse(String h) {
        if (h == null || h.length() != 55 || !h.startsWith("00-") || h.charAt(35) != '-' || h.charAt(52) != '-') {
            return null;
        }
        String traceId = h.substring(3, 35);
        String parentId = h.substring(36, 52);
        String flags = h.substring(53, 55);
        if (!hex(traceId) || !hex(parentId) || !hex(flags) || zero(traceId) || zero(parentId)) {
            return null;
        }
        return new Context(traceId, parentId, (Character.digit(flags.charAt(1), 16) & 1) == 1);
    }

    private static boolean hex(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
    }

    private static boolean zero(String s) {
        return s.chars().allMatch(c -> c == '0');
    }

    static String newId() {
        long id;
        do {
            id = ThreadLocalRandom.current().nextLong();
        } while (id == 0);
        return String.format("%016x", id);
    }
}
