package org.soaptestbed.common;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The knobs every Tomcat tier (front, clone, axis) reads, with their defaults
 * (docs/tiers.md, "Common to every tier" and "Tomcat tiers"):
 *
 * <pre>
 * PORT                           per tier   the HTTP port it listens on
 * BIND                           127.0.0.1  the address it listens on (0.0.0.0 in containers)
 * TOMCAT_MAX_THREADS             200        request worker threads
 * TOMCAT_MIN_SPARE_THREADS       10         threads kept ready
 * TOMCAT_ACCEPT_COUNT            100        accept queue (backlog) once all connections are taken
 * TOMCAT_MAX_CONNECTIONS         8192       connections held open at once
 * TOMCAT_CONNECTION_TIMEOUT_MS   20000      time to wait for a request's bytes
 * TOMCAT_KEEPALIVE_TIMEOUT_MS    20000      idle time of a kept-alive connection
 * TOMCAT_MAX_KEEPALIVE_REQUESTS  10000      requests per kept-alive connection (-1: unlimited)
 * MAX_MESSAGE_BYTES              67108864   largest request body accepted; larger gets HTTP 413
 * TOMCAT_BODY_TIMEOUT_MS         30000      longest a request body may take to arrive; later: HTTP 408
 * </pre>
 */
public record TomcatSettings(
        String bind,
        int port,
        int maxThreads,
        int minSpareThreads,
        int acceptCount,
        int maxConnections,
        int connectionTimeoutMs,
        int keepAliveTimeoutMs,
        int maxKeepAliveRequests,
        long maxMessageBytes,
        int bodyTimeoutMs) {

    public static final String DEFAULT_BIND = "127.0.0.1";
    public static final long DEFAULT_MAX_MESSAGE_BYTES = 64L * 1024 * 1024;
    private static final int ONE_HOUR_MS = 3_600_000;

    public TomcatSettings {
        if (minSpareThreads > maxThreads) {
            throw new Env.BadValue("TOMCAT_MIN_SPARE_THREADS", String.valueOf(minSpareThreads),
                    "at most TOMCAT_MAX_THREADS (" + maxThreads + ")");
        }
    }

    /** Reads the variables above; {@code defaultPort} is the tier's own default PORT. */
    public static TomcatSettings fromEnv(Env env, int defaultPort) {
        int maxKeepAlive = env.integer("TOMCAT_MAX_KEEPALIVE_REQUESTS", 10_000, -1, Integer.MAX_VALUE);
        if (maxKeepAlive == 0) {
            throw new Env.BadValue("TOMCAT_MAX_KEEPALIVE_REQUESTS", "0",
                    "-1 (unlimited) or an integer from 1 (no keep-alive) up");
        }
        return new TomcatSettings(
                env.string("BIND", DEFAULT_BIND),
                env.port("PORT", defaultPort),
                env.integer("TOMCAT_MAX_THREADS", 200, 1, 100_000),
                env.integer("TOMCAT_MIN_SPARE_THREADS", 10, 0, 100_000),
                env.integer("TOMCAT_ACCEPT_COUNT", 100, 1, 1_000_000),
                env.integer("TOMCAT_MAX_CONNECTIONS", 8192, 1, 1_000_000),
                env.integer("TOMCAT_CONNECTION_TIMEOUT_MS", 20_000, 1, ONE_HOUR_MS),
                env.integer("TOMCAT_KEEPALIVE_TIMEOUT_MS", 20_000, 1, ONE_HOUR_MS),
                maxKeepAlive,
                env.longInteger("MAX_MESSAGE_BYTES", DEFAULT_MAX_MESSAGE_BYTES, 1, Long.MAX_VALUE),
                env.integer("TOMCAT_BODY_TIMEOUT_MS", 30_000, 1, ONE_HOUR_MS));
    }

    /** The effective values, named like their variables, for the start-up log line. */
    public Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("BIND", bind);
        m.put("PORT", port);
        m.put("TOMCAT_MAX_THREADS", maxThreads);
        m.put("TOMCAT_MIN_SPARE_THREADS", minSpareThreads);
        m.put("TOMCAT_ACCEPT_COUNT", acceptCount);
        m.put("TOMCAT_MAX_CONNECTIONS", maxConnections);
        m.put("TOMCAT_CONNECTION_TIMEOUT_MS", connectionTimeoutMs);
        m.put("TOMCAT_KEEPALIVE_TIMEOUT_MS", keepAliveTimeoutMs);
        m.put("TOMCAT_MAX_KEEPALIVE_REQUESTS", maxKeepAliveRequests);
        m.put("MAX_MESSAGE_BYTES", maxMessageBytes);
        m.put("TOMCAT_BODY_TIMEOUT_MS", bodyTimeoutMs);
        return m;
    }
}
