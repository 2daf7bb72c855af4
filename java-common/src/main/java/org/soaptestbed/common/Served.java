package org.soaptestbed.common;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The tier's own count of the requests it served, by status class, health checks left out:
 * what a load generator's success count is checked against (nothing lost between them).
 * {@code GET /served} answers it as JSON.
 */
public final class Served {
    private final LongAdder started = new LongAdder();
    private final LongAdder ok = new LongAdder();          // 1xx-3xx
    private final LongAdder clientErrors = new LongAdder(); // 4xx
    private final LongAdder serverErrors = new LongAdder(); // 5xx
    private final AtomicLong inFlight = new AtomicLong();

    public void started() {
        started.increment();
        inFlight.incrementAndGet();
    }

    public void finished(int status) {
        inFlight.decrementAndGet();
        (status >= 500 ? serverErrors : status >= 400 ? clientErrors : ok).increment();
    }

    public String json() {
        long client = clientErrors.sum(), server = serverErrors.sum();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("started", started.sum());
        m.put("ok", ok.sum());
        m.put("errors", client + server);
        m.put("client_errors", client);
        m.put("server_errors", server);
        m.put("in_flight", inFlight.get());
        return Json.write(m);
    }
}
