package org.soaptestbed.common.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.soaptestbed.common.Json;

class TracerTest {

    private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String PARENT = "00f067aa0ba902b7";

    @AfterEach
    void off() {
        Tracer.use(null);
    }

    @Test
    void aValidHeaderGivesItsTraceParentAndSampledFlagAndAnythingElseNothing() {
        assertEquals(new Tracer.Context(TRACE, PARENT, true), Tracer.parse("00-" + TRACE + "-" + PARENT + "-01"));
        assertEquals(new Tracer.Context(TRACE, PARENT, true), Tracer.parse("00-" + TRACE + "-" + PARENT + "-03"));
        assertEquals(new Tracer.Context(TRACE, PARENT, false), Tracer.parse("00-" + TRACE + "-" + PARENT + "-00"));
        // level 1 only: another version, with or without fields of its own, is not continued
        for (String bad : new String[] {"", "01-" + TRACE + "-" + PARENT + "-01-extra", "00-" + TRACE + "-" + PARENT + "-01-x",
                "ff-" + TRACE + "-" + PARENT + "-01", "00-" + TRACE.toUpperCase() + "-" + PARENT + "-01",
                "00-" + "0".repeat(32) + "-" + PARENT + "-01", "00-" + TRACE + "-" + "0".repeat(16) + "-01",
                "00-" + TRACE + "_" + PARENT + "-01", "00-" + TRACE + "-" + PARENT + "-zz",
                " 00-" + TRACE + "-" + PARENT + "-01"}) {
            assertNull(Tracer.parse(bad), bad);
        }
    }

    @Test
    void offOrUnsampledNoSpanIsMade() {
        assertNull(Tracer.server("00-" + TRACE + "-" + PARENT + "-01", "GET /seg/5"));   // tracing off
        Tracer.use(new ZipkinExporter(URI.create("http://127.0.0.1:9/api/v2/spans"), "front"));
        assertNull(Tracer.server(null, "GET /seg/5"));
        assertNull(Tracer.server("00-" + TRACE + "-" + PARENT + "-00", "GET /seg/5"));
        assertNull(Tracer.child("Invoker.invoke", null));
        assertNull(Tracer.traceparent());
    }

    @Test
    void childrenNestUnderTheServerSpanAndTheThreadIsClearedAfterIt() {
        Tracer.use(new ZipkinExporter(URI.create("http://127.0.0.1:9/api/v2/spans"), "front"));
        Span server = Tracer.server("00-" + TRACE + "-" + PARENT + "-01", "GET /seg/5");
        assertEquals(TRACE, server.traceId());
        assertEquals(PARENT, server.parentId());
        assertSame(server, Tracer.current());
        Span method = Tracer.child("Invoker.invoke", null);
        Span call = Tracer.child("GET", Span.Kind.CLIENT);
        assertEquals(method.id(), call.parentId());
        assertEquals(server.id(), method.parentId());
        assertNotEquals(server.id(), method.id());
        assertEquals("00-" + TRACE + "-" + call.id() + "-01", Tracer.traceparent());
        call.close();
        call.close();                                  // a second close does nothing
        assertSame(method, Tracer.current());
        method.close();
        server.close();
        assertNull(Tracer.current());
        assertTrue(server.durationMicros() >= 1);
    }

    @Test
    void theExporterPostsZipkinJsonOfEveryEndedSpan() throws IOException {
        List<JsonNode> received = new ArrayList<>();
        HttpServer zipkin = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        zipkin.createContext("/api/v2/spans", ex -> {
            synchronized (received) {
                Json.MAPPER.readTree(ex.getRequestBody()).forEach(received::add);
            }
            ex.sendResponseHeaders(202, -1);
            ex.close();
        });
        zipkin.start();
        try {
            URI url = URI.create("http://127.0.0.1:" + zipkin.getAddress().getPort() + "/api/v2/spans");
            ZipkinExporter exporter = new ZipkinExporter(url, "clone");
            Tracer.use(exporter);
            try (Span server = Tracer.server("00-" + TRACE + "-" + PARENT + "-01", "GET /invoke")) {
                try (Span call = Tracer.child("POST", Span.Kind.CLIENT)) {
                    call.tag("soap.operation", "ping");
                }
            }
            exporter.flush();
            assertEquals(2, exporter.sent());
            assertEquals(0, exporter.dropped());
            JsonNode call = received.get(0);
            JsonNode server = received.get(1);
            assertEquals("CLIENT", call.get("kind").asText());
            assertEquals("SERVER", server.get("kind").asText());
            assertEquals(server.get("id").asText(), call.get("parentId").asText());
            assertEquals(PARENT, server.get("parentId").asText());
            assertEquals(TRACE, call.get("traceId").asText());
            assertEquals("clone", call.get("localEndpoint").get("serviceName").asText());
            assertEquals("ping", call.get("tags").get("soap.operation").asText());
            assertTrue(call.get("timestamp").asLong() > 1_600_000_000_000_000L);
            assertTrue(server.get("duration").asLong() >= call.get("duration").asLong());
        } finally {
            zipkin.stop(0);
        }
    }

    @Test
    void zipkinUnreachableDropsTheBatchAndCountsIt() {
        ZipkinExporter exporter = new ZipkinExporter(URI.create("http://127.0.0.1:9/api/v2/spans"), "axis");
        Tracer.use(exporter);
        Tracer.server("00-" + TRACE + "-" + PARENT + "-01", "POST /axis").close();
        exporter.flush();
        assertEquals(0, exporter.sent());
        assertEquals(1, exporter.dropped());
    }
}
