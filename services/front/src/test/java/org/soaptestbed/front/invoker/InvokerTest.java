package org.soaptestbed.front.invoker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.soaptestbed.common.Demand;
import org.soaptestbed.front.FrontException;

/** The Invoker against a throwaway HTTP server on loopback standing in for the client tier. */
class InvokerTest {

    private static final Demand NONE = new Demand("INVOKER", 0, 0, false);

    private HttpServer fake;
    private ExecutorService threads;
    private final AtomicReference<String> lastQuery = new AtomicReference<>();
    private volatile int status = 200;
    private volatile String body = "{}";
    private volatile long delayMs;

    @BeforeEach
    void startFakeClientTier() throws IOException {
        fake = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        threads = Executors.newFixedThreadPool(4);
        fake.setExecutor(threads);
        fake.createContext("/invoke", this::answer);
        fake.start();
    }

    @AfterEach
    void stopFakeClientTier() {
        fake.stop(0);
        threads.shutdownNow();
    }

    private void answer(HttpExchange exchange) throws IOException {
        lastQuery.set(exchange.getRequestURI().getRawQuery());
        if (delayMs > 0) {
            try {
                Thread.sleep(delayMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private Invoker invoker(long timeoutMs) {
        return new Invoker(URI.create("http://127.0.0.1:" + fake.getAddress().getPort()), Duration.ofMillis(timeoutMs), NONE);
    }

    @Test
    void passes_the_call_on_and_reads_the_serving_clone_and_result() {
        body = "{\"clone\": {\"host\": \"box1\", \"pid\": 4242}, \"result\": {\"count\": 5, \"checksum\": 123}}";
        CloneAnswer answer = invoker(5_000).invoke("gsoap", "sendInts", 5);
        assertEquals("backend=gsoap&op=sendInts&n=5", lastQuery.get());
        assertEquals("box1", answer.host());
        assertEquals("4242", answer.pid());
        assertEquals("count=5 checksum=123", answer.result());
    }

    @Test
    void reads_the_client_tiers_answer() {
        body = "{\"clone\": {\"host\": \"clone-3\", \"pid\": 77, \"mode\": \"singleton\"}, \"backend\": \"axis\","
                + " \"op\": \"work\", \"n\": 0, \"seed\": \"1\", \"ok\": true, \"count\": null, \"checksum\": null,"
                + " \"echo_equal\": null, \"work\": {\"implementation\": \"axis\", \"host\": \"svc\", \"pid\": 9},"
                + " \"millis\": 1.5}";
        CloneAnswer answer = invoker(5_000).invoke("axis", "work", 0);
        assertEquals("clone-3", answer.host());           // the clone's, not the service's
        assertEquals("77", answer.pid());
        assertEquals("ok=true work.implementation=axis work.host=svc work.pid=9", answer.result());
    }

    @Test
    void an_error_the_client_tier_blames_on_the_service_names_the_service() {
        status = 502;
        body = "{\"ok\": false, \"tier\": \"soap-service\", \"error\": \"connection refused: gsoap\"}";
        FrontException e = assertThrows(FrontException.class, () -> invoker(5_000).invoke("gsoap", "ping", 0));
        assertEquals(502, e.status());
        assertEquals("soap-service", e.tier());
        assertTrue(e.reason().contains("client tier answered HTTP 502") && e.reason().contains("connection refused: gsoap"),
                e.reason());
    }

    @Test
    void reads_flat_answers_too() {
        body = "{\"host\": \"box2\", \"pid\": 7, \"ok\": true, \"count\": 0, \"checksum\": 2166136261}";
        CloneAnswer answer = invoker(5_000).invoke("axis", "ping", 0);
        assertEquals("box2", answer.host());
        assertEquals("7", answer.pid());
        assertEquals("ok=true count=0 checksum=2166136261", answer.result());
    }

    @Test
    void an_error_status_is_a_502_naming_the_client_tier_and_its_reason() {
        status = 500;
        body = "{\"error\": \"soap service axis answered a fault\"}";
        FrontException e = assertThrows(FrontException.class, () -> invoker(5_000).invoke("axis", "ping", 0));
        assertEquals(502, e.status());
        assertEquals(FrontException.CLIENT_TIER, e.tier());
        assertTrue(e.reason().contains("HTTP 500") && e.reason().contains("soap service axis answered a fault"),
                e.reason());
    }

    @Test
    void a_client_tier_timeout_stays_a_504() {
        status = 504;
        body = "{\"error\": \"service did not answer\"}";
        FrontException e = assertThrows(FrontException.class, () -> invoker(5_000).invoke("axis", "ping", 0));
        assertEquals(504, e.status());
    }

    @Test
    void no_answer_within_the_timeout_is_a_504() {
        delayMs = 3_000;
        long t0 = System.nanoTime();
        FrontException e = assertThrows(FrontException.class, () -> invoker(300).invoke("axis", "ping", 0));
        long tookMs = (System.nanoTime() - t0) / 1_000_000;
        assertEquals(504, e.status());
        assertTrue(e.reason().contains("INVOKER_TIMEOUT_MS=300"), e.reason());
        assertTrue(tookMs < 2_500, "gave up after " + tookMs + " ms, not at the 300 ms timeout");
    }

    @Test
    void an_unreachable_client_tier_is_a_502() throws IOException {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        Invoker invoker = new Invoker(URI.create("http://127.0.0.1:" + closedPort), Duration.ofSeconds(5), NONE);
        FrontException e = assertThrows(FrontException.class, () -> invoker.invoke("axis", "ping", 0));
        assertEquals(502, e.status());
        assertTrue(e.reason().startsWith("unreachable"), e.reason());
    }

    @Test
    void an_answer_that_is_not_json_is_a_502() {
        body = "<html>oops</html>";
        FrontException e = assertThrows(FrontException.class, () -> invoker(5_000).invoke("axis", "ping", 0));
        assertEquals(502, e.status());
    }

    @Test
    void the_invoker_demand_is_taken_before_the_call() {
        body = "{\"host\": \"h\", \"pid\": 1}";
        Invoker slow = new Invoker(URI.create("http://127.0.0.1:" + fake.getAddress().getPort()), Duration.ofSeconds(5),
                new Demand("INVOKER", 0, 100_000, false));
        long t0 = System.nanoTime();
        slow.invoke("axis", "ping", 0);
        assertTrue((System.nanoTime() - t0) / 1_000_000 >= 90);
    }
}
