package org.soaptestbed.common.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.soaptestbed.common.Json;

/** Spans bounded in bytes, the exporter's queue bounded in bytes, the sampling rate capped. */
class SpanBoundsTest {

    private static final String SAMPLED = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    private static final String PATH_8K = "/seg/5/" + "a".repeat(8 * 1024);

    @AfterEach
    void off() {
        Tracer.use(null);
        Tracer.cap(RateCap.fromKnob());
    }

    private static int jsonBytes(Span s) {
        return Json.write(s.toZipkin("front")).getBytes(StandardCharsets.UTF_8).length;
    }

    @Test
    void aSpanOfAnEightKilobytePathIsStoredWithinTheBound() {
        Tracer.use(new ZipkinExporter(URI.create("http://127.0.0.1:9/api/v2/spans"), "front"));
        Span s = Tracer.server(SAMPLED, "GET " + PATH_8K);
        s.tag("http.method", "GET").tag("http.path", PATH_8K).tag("x".repeat(500), PATH_8K);
        for (int i = 0; i < 20; i++) {
            s.tag("k" + i, PATH_8K);
        }
        s.close();
        int bytes = jsonBytes(s);
        assertTrue(bytes <= SpanBounds.SPAN_MAX, bytes + " bytes");
        assertTrue(s.bytes() <= SpanBounds.SPAN_MAX);
        assertTrue(bytes <= s.bytes(), "the estimate covers the JSON: " + bytes + " > " + s.bytes());
        assertTrue(s.name().endsWith(SpanBounds.MARK) && s.name().getBytes(StandardCharsets.UTF_8).length
                <= SpanBounds.NAME_MAX);
        @SuppressWarnings("unchecked")
        Map<String, String> tags = (Map<String, String>) s.toZipkin("front").get("tags");
        assertEquals("GET", tags.get("http.method"));
        assertTrue(tags.get("http.path").startsWith("/seg/5/aaa") && tags.get("http.path").endsWith(SpanBounds.MARK));
        assertEquals(SpanBounds.MARK, tags.get(SpanBounds.TRUNCATED_TAG), "left-out tags are said");
        assertTrue(tags.keySet().stream().allMatch(k -> k.length() <= SpanBounds.KEY_MAX));
    }

    @Test
    void escapedCharactersCountAsJsonWritesThem() {
        Tracer.use(new ZipkinExporter(URI.create("http://127.0.0.1:9/api/v2/spans"), "front"));
        Span s = Tracer.server(SAMPLED, "GET /" + "\"\\\u0001".repeat(100));
        for (int i = 0; i < 12; i++) {
            s.tag("k" + i, "\"\u0002\\é".repeat(100));
        }
        s.close();
        int bytes = jsonBytes(s);
        assertTrue(bytes <= s.bytes() && s.bytes() <= SpanBounds.SPAN_MAX, bytes + " of JSON, " + s.bytes() + " counted");
    }

    @Test
    void clippingKeepsWholeCharactersAndShortTextAsItIs() {
        assertEquals("GET /seg/5", SpanBounds.clip("GET /seg/5", 128));
        String clipped = SpanBounds.clip("é".repeat(200), 128);
        assertTrue(clipped.getBytes(StandardCharsets.UTF_8).length <= 128);
        assertTrue(clipped.startsWith("éé") && clipped.endsWith(SpanBounds.MARK));
        assertFalse(clipped.contains("\uFFFD"));
    }

    @Test
    void theQueueHoldsAtMostItsBytesAndCountsWhatItDrops() {
        ZipkinExporter e = new ZipkinExporter(URI.create("http://127.0.0.1:9/api/v2/spans"), "front");
        Tracer.use(e);
        Tracer.cap(new RateCap(1e9));
        long offered = 0;
        while (e.dropped() == 0 && offered < ZipkinExporter.MAX_QUEUED) {
            Span s = Tracer.server(SAMPLED, "GET " + PATH_8K);
            s.tag("http.path", PATH_8K).close();
            offered++;
        }
        assertTrue(e.dropped() > 0, "the byte bound comes before the count bound");
        assertTrue(e.queuedBytes() <= ZipkinExporter.MAX_QUEUED_BYTES);
        assertTrue(e.queuedBytes() > ZipkinExporter.MAX_QUEUED_BYTES - SpanBounds.SPAN_MAX);
    }

    @Test
    void sampledRequestsBeyondTheCapAreServedUntracedAndCounted() {
        Tracer.use(new ZipkinExporter(URI.create("http://127.0.0.1:9/api/v2/spans"), "front"));
        Tracer.cap(new RateCap(0.001));      // one token, then none for 1000 s
        long before = Tracer.capped();
        Span first = Tracer.server(SAMPLED, "GET /seg/5");
        assertNotNull(first);
        first.close();
        for (int i = 0; i < 5; i++) {
            assertNull(Tracer.server(SAMPLED, "GET /seg/5"));
            assertNull(Tracer.traceparent(), "nothing forwarded for a capped request");
        }
        assertEquals(5, Tracer.capped() - before);
    }

    @Test
    void theCapKnobFallsBackToItsDefaultWhenNotAPositiveNumber() {
        for (String bad : new String[] {"", "x", "-5", "0", "NaN", "Infinity"}) {
            System.setProperty(RateCap.KNOB, bad);
            try {
                assertEquals(RateCap.DEFAULT_PER_S, RateCap.fromKnob().perSecond(), bad);
            } finally {
                System.clearProperty(RateCap.KNOB);
            }
        }
        System.setProperty(RateCap.KNOB, "50");
        try {
            assertEquals(50, RateCap.fromKnob().perSecond());
        } finally {
            System.clearProperty(RateCap.KNOB);
        }
    }
}
