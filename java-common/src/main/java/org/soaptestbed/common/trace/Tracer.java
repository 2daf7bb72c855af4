package org.soaptestbed.common.trace;

import java.net.URI;
import java.util.concurrent.ThreadLocalRandom;

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
 */
public final class Tracer {

    private static final ThreadLocal<Span> CURRENT = new ThreadLocal<>();
    private static volatile ZipkinExporter exporter = fromSystemProperties();

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

    /** The span current on this thread, or null (untraced request, or tracing off). */
    public static Span current() {
        return exporter == null ? null : CURRENT.get();
    }

    /**
     * A SERVER span, made current, when {@code traceparent} is a valid W3C header with the
     * sampled flag; null otherwise (and for every request while tracing is off).
     */
    public static Span server(String traceparent, String name) {
        if (exporter == null || traceparent == null) {
            return null;
        }
        String[] parts = parse(traceparent);
        if (parts == null) {
            return null;
        }
        return begin(new Span(parts[0], newId(), parts[1], name, Span.Kind.SERVER, CURRENT.get()));
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
     * {trace id, parent span id} of a sampled {@code 00-<32 hex>-<16 hex>-<2 hex>} header (a later
     * version's extra fields are ignored, as the W3C spec asks); null when malformed, all-zero
     * ids or not sampled.
     */
    static String[] parse(String header) {
        String h = header.trim();
        if (h.length() < 55 || h.charAt(2) != '-' || h.charAt(35) != '-' || h.charAt(52) != '-'
                || (h.length() > 55 && h.charAt(55) != '-') || h.startsWith("ff")) {
            return null;
        }
        String version = h.substring(0, 2);
        String traceId = h.substring(3, 35);
        String parentId = h.substring(36, 52);
        String flags = h.substring(53, 55);
        if (!hex(version) || !hex(traceId) || !hex(parentId) || !hex(flags)
                || (version.equals("00") && h.length() != 55)
                || zero(traceId) || zero(parentId) || (Integer.parseInt(flags, 16) & 1) == 0) {
            return null;
        }
        return new String[] {traceId, parentId};
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
