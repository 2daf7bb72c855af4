package org.soaptestbed.common.trace;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One span of a sampled trace, in Zipkin's v2 model: made by {@link Tracer} only for a request
 * whose {@code traceparent} has the sampled flag, current on its thread from creation to
 * {@link #close}, which restores the span that was current before and hands this one to the
 * exporter. Not shared between threads. Bounded in bytes ({@link SpanBounds}): the name and each
 * tag clipped, the tags together kept within the span's total.
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
    private int bytes;

    Span(String traceId, String id, String parentId, String name, Kind kind, Span previous) {
        this.traceId = traceId;
        this.id = id;
        this.parentId = parentId;
        this.name = SpanBounds.clip(name, SpanBounds.NAME_MAX);
        this.bytes = SpanBounds.FIXED + SpanBounds.bytes(this.name);
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

    /**
     * Sets a tag, its key and value clipped; one that does not fit in the span's total any more
     * is left out, and the tag {@code truncated} says so (a key set again replaces its value).
     */
    public Span tag(String key, Object value) {
        String k = SpanBounds.clip(key, SpanBounds.KEY_MAX);
        String v = SpanBounds.clip(String.valueOf(value), SpanBounds.VALUE_MAX);
        String old = tags.get(k);
        int was = old == null ? 0 : entryBytes(k, old);
        int need = entryBytes(k, v);
        if (bytes - was + need > SpanBounds.SPAN_MAX - entryBytes(SpanBounds.TRUNCATED_TAG, SpanBounds.MARK)) {
            if (old != null) {
                tags.remove(k);
                bytes -= was;
            }
            if (!tags.containsKey(SpanBounds.TRUNCATED_TAG)) {
                tags.put(SpanBounds.TRUNCATED_TAG, SpanBounds.MARK);
                bytes += entryBytes(SpanBounds.TRUNCATED_TAG, SpanBounds.MARK);
            }
            return this;
        }
        tags.put(k, v);
        bytes += need - was;
        return this;
    }

    private static int entryBytes(String k, String v) {
        return SpanBounds.bytes(k) + SpanBounds.bytes(v) + 6;     // "k":"v",
    }

    /** Bytes of its JSON at most (name, tags and {@link SpanBounds#FIXED}). */
    int bytes() {
        return bytes;
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
