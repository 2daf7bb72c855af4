package org.soaptestbed.clones;

import java.util.concurrent.TimeUnit;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClientBuilder;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.io.SocketConfig;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;
import org.soaptestbed.common.trace.TraceFilter;
import org.soaptestbed.common.trace.Tracer;

/**
 * The HTTP client (httpclient5, what Axis2 2.x's HTTP transport runs on) under a SOAP
 * client: keep-alive connections from a pooling connection manager, with the connect and
 * read timeouts of SOAP_TIMEOUT_MS.
 *
 * <p>Axis2 is handed this client through the {@code CACHED_HTTP_CLIENT} option, so it
 * neither builds its own nor shares one connection manager through the
 * ConfigurationContext: who owns the connections is decided by the client lifecycle
 * (one transport per backend in singleton and pool modes, one per client in request mode).
 */
public final class HttpTransport implements AutoCloseable {

    /** A kept-alive connection idle longer than this is checked before it is reused. */
    private static final TimeValue VALIDATE_AFTER_IDLE = TimeValue.ofMilliseconds(1000);

    private final CloseableHttpClient client;
    private final PoolingHttpClientConnectionManager connections;

    /**
     * @param maxConnections connections kept to the endpoint (the most calls that can be in
     *                       flight on this transport at once)
     * @param timeoutMs      connect timeout, read (socket) timeout, and the longest wait for a
     *                       free connection
     * @param longLived      true: a background thread closes connections idle for 30 s (a
     *                       transport kept for the life of the tier); false for a transport
     *                       closed after one call (request mode), which needs no such thread
     */
    public HttpTransport(int maxConnections, int timeoutMs, boolean longLived) {
        Timeout timeout = Timeout.ofMilliseconds(timeoutMs);
        connections = PoolingHttpClientConnectionManagerBuilder.create()
                .setMaxConnTotal(maxConnections)
                .setMaxConnPerRoute(maxConnections)
                .setDefaultSocketConfig(SocketConfig.custom().setSoTimeout(timeout).setTcpNoDelay(true).build())
                .setDefaultConnectionConfig(ConnectionConfig.custom()
                        .setConnectTimeout(timeout)
                        .setSocketTimeout(timeout)
                        .setValidateAfterInactivity(VALIDATE_AFTER_IDLE)
                        .build())
                .build();
        HttpClientBuilder builder = HttpClientBuilder.create()
                .setConnectionManager(connections)
                .setDefaultRequestConfig(RequestConfig.custom()
                        .setConnectionRequestTimeout(timeout)
                        .setResponseTimeout(timeout)
                        .build())
                .disableCookieManagement()       // SOAP calls carry no session
                .disableAutomaticRetries()       // a failed POST is reported, never replayed
                .disableRedirectHandling()
                // a traced call (SoapCall.send's CLIENT span current on this thread) carries its
                // traceparent: the service's span becomes its child
                .addRequestInterceptorFirst((request, entity, context) -> {
                    String traceparent = Tracer.traceparent();
                    if (traceparent != null) {
                        request.setHeader(TraceFilter.HEADER, traceparent);
                    }
                });
        if (longLived) {
            builder.evictExpiredConnections().evictIdleConnections(TimeValue.of(30, TimeUnit.SECONDS));
        }
        client = builder.build();
    }

    public CloseableHttpClient client() {
        return client;
    }

    /** Connections open now (leased + idle), for /status. */
    public int openConnections() {
        var stats = connections.getTotalStats();
        return stats.getLeased() + stats.getAvailable();
    }

    /** Closes every connection at once (in-flight calls on it fail). */
    @Override
    public void close() {
        client.close(CloseMode.IMMEDIATE);
    }
}
