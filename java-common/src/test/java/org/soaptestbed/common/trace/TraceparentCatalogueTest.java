package org.soaptestbed.common.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.soaptestbed.common.Json;

/**
 * The shared catalogue of adversarial {@code traceparent} headers
 * (tests/hostile_observability/traceparents.py, read from its JSON export) through the Java
 * tiers' rule: the header values as the filter sees them, the span made or not.
 */
class TraceparentCatalogueTest {

    static final Path EXPORT = Path.of("..", "tests", "hostile_observability", "traceparents.json");

    @AfterEach
    void off() {
        Tracer.use(null);
        Tracer.cap(RateCap.fromKnob());
    }

    static JsonNode catalogue() throws IOException {
        JsonNode cases = Json.MAPPER.readTree(Files.readString(EXPORT));
        assertTrue(cases.size() >= 40, "the catalogue has its cases");
        return cases;
    }

    @Test
    void everyCaseGetsItsOutcome() throws IOException {
        Tracer.use(new ZipkinExporter(URI.create("http://127.0.0.1:9/api/v2/spans"), "front"));
        Tracer.cap(new RateCap(1e9));
        for (JsonNode c : catalogue()) {
            String label = c.get("label").asText();
            String expected = c.get("expected").asText();
            List<String> values = new ArrayList<>();
            c.get("headers").forEach(h -> values.add(h.asText()));
            String only = TraceFilter.only(Collections.enumeration(values));
            Tracer.Context context = only == null ? null : Tracer.parse(only);
            try (Span span = Tracer.server(only, "GET /seg/5")) {
                switch (expected) {
                    case "sampled" -> {
                        assertNotNull(span, label);
                        assertEquals(values.get(0).substring(3, 35), span.traceId(), label);
                        assertEquals(values.get(0).substring(36, 52), span.parentId(), label);
                    }
                    case "unsampled" -> {
                        assertNull(span, label);
                        assertNotNull(context, label);
                    }
                    default -> {
                        assertNull(span, label);
                        assertNull(context, label);
                    }
                }
                // a call made now carries this tier's own span's context, or none
                String forwarded = Tracer.traceparent();
                if (span == null) {
                    assertNull(forwarded, label);
                } else {
                    assertTrue(!values.contains(forwarded) && forwarded.endsWith("-01"), label);
                }
            }
        }
    }
}
