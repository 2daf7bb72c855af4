package org.soaptestbed.common.trace;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.soaptestbed.common.Json;

/**
 * Sends ended spans to Zipkin ({@code POST /api/v2/spans}, JSON v2) from a daemon thread of its
 * own, every second, in batches. The request path only appends to a lock-free queue bounded at
 * {@link #MAX_QUEUED} spans and {@link #MAX_QUEUED_BYTES} bytes (each span at most
 * {@link SpanBounds#SPAN_MAX}): a full queue drops the span (counted, logged with the next batch)
 * and never blocks a request; a batch Zipkin refuses or that times out is dropped the same way.
 * So a slow or dead Zipkin costs spans, never the tier's heap: what waits is at most the queue's
 * bytes plus one batch being sent.
 */
public final class ZipkinExporter {

    private static final Logger LOG = Logger.getLogger(ZipkinExporter.class.getName());
    static final int MAX_QUEUED = 50_000;
    static final long MAX_QUEUED_BYTES = 16L << 20;
    static final int MAX_BATCH = 2_000;
    static final Duration EVERY = Duration.ofSeconds(1);
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final URI endpoint;
    private final String service;
    private final ConcurrentLinkedQueue<Span> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicLong queuedBytes = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong sent = new AtomicLong();
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1).connectTimeout(TIMEOUT).build();
    private long droppedLogged;
    private long cappedLogged;

    ZipkinExporter(URI endpoint, String service) {
        this.endpoint = endpoint;
        this.service = service;
    }

    /** An exporter whose thread sends every {@link #EVERY}. */
    static ZipkinExporter start(URI endpoint, String service) {
        ZipkinExporter e = new ZipkinExporter(endpoint, service);
        Thread t = new Thread(e::loop, "zipkin-exporter");
        t.setDaemon(true);
        t.start();
        Runtime.getRuntime().addShutdownHook(new Thread(e::flush, "zipkin-exporter-flush"));
        LOG.info(() -> "tracing on: " + service + " sends the spans of sampled requests to " + endpoint);
        return e;
    }

    void offer(Span s) {
        int b = s.bytes();
        boolean full = queued.incrementAndGet() > MAX_QUEUED;
        full |= queuedBytes.addAndGet(b) > MAX_QUEUED_BYTES;     // both counted, then both undone
        if (full) {
            queued.decrementAndGet();
            queuedBytes.addAndGet(-b);
            dropped.incrementAndGet();
            return;
        }
        queue.add(s);
    }

    /** Bytes of the spans waiting now (at most {@link #MAX_QUEUED_BYTES}). */
    long queuedBytes() {
        return queuedBytes.get();
    }

    long sent() {
        return sent.get();
    }

    long dropped() {
        return dropped.get();
    }

    private void loop() {
        while (true) {
            try {
                Thread.sleep(EVERY.toMillis());
                flush();
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "tracing: exporter error (spans of this batch lost)", e);
            }
        }
    }

    /** Sends what is queued now, in batches of at most {@link #MAX_BATCH}. */
    synchronized void flush() {
        while (true) {
            List<Map<String, Object>> batch = new ArrayList<>();
            Span s;
            while (batch.size() < MAX_BATCH && (s = queue.poll()) != null) {
                queued.decrementAndGet();
                queuedBytes.addAndGet(-s.bytes());
                batch.add(s.toZipkin(service));
            }
            if (batch.isEmpty()) {
                break;
            }
            post(batch);
        }
        long d = dropped.get();
        if (d != droppedLogged) {
            LOG.warning(() -> "tracing: " + (d - droppedLogged) + " span(s) dropped (queue full or Zipkin unreachable), "
                    + d + " in all");
            droppedLogged = d;
        }
        long c = Tracer.capped();
        if (c != cappedLogged) {
            LOG.warning(() -> "tracing: " + (c - cappedLogged) + " sampled request(s) served untraced over the cap of "
                    + Tracer.capPerSecond() + "/s (" + RateCap.KNOB + "), " + c + " in all");
            cappedLogged = c;
        }
    }

    private void post(List<Map<String, Object>> batch) {
        HttpRequest request = HttpRequest.newBuilder(endpoint)
                .timeout(TIMEOUT)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(Json.write(batch)))
                .build();
        try {
            HttpResponse<Void> r = http.send(request, HttpResponse.BodyHandlers.discarding());
            if (r.statusCode() / 100 == 2) {
                sent.addAndGet(batch.size());
                return;
            }
            LOG.warning(() -> "tracing: Zipkin answered " + r.statusCode() + " to " + batch.size() + " span(s)");
        } catch (java.io.IOException e) {
            LOG.warning(() -> "tracing: cannot send " + batch.size() + " span(s) to " + endpoint + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        dropped.addAndGet(batch.size());
    }
}
