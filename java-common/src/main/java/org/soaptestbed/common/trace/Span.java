package org.soaptestbed.common.trace;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One span of a sampled trace, in Zipkin's v2 model: made by {@link Tracer} only for a request
 * whose {@code traceparent} has the sampled flag, current on its thread from creation to
 * {@link #close}, which restores the span that was current before and hands this one to the
 * exporter. Not shared between threads.
 */
public final class Span implements AutoCloseable {

    /** Zipkin's span kinds; a span inside a tier (a method) has none. */
    public enum Kind { SERVER, CLIENT }

    private final String traceId;
    private final String id;
    private final String parentId;
    private final String name;
    private final Kind kind;
    private final long timestampMicros;
    private final long startNanos;
    private final Span previous;
    private final Map<String, String> tags = new LinkedHashMap<>(4);
    private long durationMicros = -1;

    Span(String traceId, String id, String parentId, String name, Kind kind, Span previous) {
        this.traceId = traceId;
        this.id = id;
        this.parentId = parentId;
        this.name = name;
        this.kind = kind;
        this.previous = previous;
        Instant now = Instant.now();
        this.timestampMicros = now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
        this.startNanos = System.nanoTime();
    }

    public String traceId() {
        return traceId;
    }

    public String id() {
        return id;
    }

    public String parentId() {
        return parentId;
    }

    public String name() {
        return name;
    }

    public Kind kind() {
        return kind;
    }

    Span previous() {
        return previous;
    }

    /** The W3C header that makes the callee's span a child of this one (always sampled). */
    public String traceparent() {
        return "00-" + traceId + "-" + id + "-01";
    }

    public Span tag(String key, Object value) {
        tags.put(key, String.valueOf(value));
        return this;
    }

    /** The duration in µs once closed, -1 before. */
    public long durationMicros() {
        return durationMicros;
    }

    /** Ends the span (once; later calls do nothing) and sends it. */
    @Override
    public void close() {
        if (durationMicros >= 0) {
            return;
        }
        durationMicros = Math.max(1, (System.nanoTime() - startNanos) / 1_000);
        Tracer.ended(this);
    }

    /** Zipkin's JSON v2 of this span, for {@code POST /api/v2/spans}. */
    Map<String, Object> toZipkin(String serviceName) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("traceId", traceId);
        m.put("id", id);
        if (parentId != null) {
            m.put("parentId", parentId);
        }
        m.put("name", name);
        if (kind != null) {
            m.put("kind", kind.name());
        }
        m.put("timestamp", timestampMicros);
        m.put("duration", durationMicros);
        m.put("localEndpoint", Map.of("serviceName", serviceName));
        if (!tags.isEmpty()) {
            m.put("tags", tags);
        }
        return m;
    }
}
