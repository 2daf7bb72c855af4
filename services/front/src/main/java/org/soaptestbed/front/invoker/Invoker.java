package org.soaptestbed.front.invoker;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.soaptestbed.common.Demand;
import org.soaptestbed.common.trace.Span;
import org.soaptestbed.common.trace.TraceFilter;
import org.soaptestbed.common.trace.Tracer;
import org.soaptestbed.front.FrontException;

/**
 * The bean's invoker (segment ⑤): one HTTP call to the client tier,
 * {@code GET CLONES_URL/invoke?backend=&op=&n=}, which makes the SOAP call and answers JSON.
 *
 * <p>One {@link HttpClient} (HTTP/1.1, kept-alive connections) serves every call. The whole
 * exchange, body included, is bounded by INVOKER_TIMEOUT_MS; connecting by the smaller of
 * that and {@link #MAX_CONNECT_TIMEOUT}. Every failure becomes a {@link FrontException}
 * naming the client tier: 504 when it did not answer in time, 502 otherwise (unreachable,
 * an error status, an unreadable answer). The INVOKER demand is taken before the call.
 */
public final class Invoker {

    /** Connecting to HAProxy on the same host or network takes far less; more means it is down. */
    public static final Duration MAX_CONNECT_TIMEOUT = Duration.ofSeconds(5);

    private final String invokeUrl;
    private final Duration timeout;
    private final Demand demand;
    private final HttpClient http;

    /**
     * @param clonesUrl where the client tier is reached (HAProxy's "clones" entry), e.g.
     *                  http://127.0.0.1:8081
     */
    public Invoker(URI clonesUrl, Duration timeout, Demand demand) {
        String base = clonesUrl.toString();
        this.invokeUrl = (base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + "/invoke";
        this.timeout = timeout;
        this.demand = demand;
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)          // no h2c upgrade attempt per request
                .connectTimeout(timeout.compareTo(MAX_CONNECT_TIMEOUT) < 0 ? timeout : MAX_CONNECT_TIMEOUT)
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    /** Asks the client tier to call {@code op} with {@code n} items on {@code backend}. */
    public CloneAnswer invoke(String backend, String op, int n) {
        try (Span span = Tracer.child("Invoker.invoke", null)) {
            demand.apply();
            URI uri = URI.create(invokeUrl + "?backend=" + encode(backend) + "&op=" + encode(op) + "&n=" + n);
            HttpRequest.Builder request = HttpRequest.newBuilder(uri)
                    .timeout(timeout)
                    .header("Accept", "application/json")
                    .GET();
            HttpResponse<String> response;
            try (Span call = Tracer.child("GET", Span.Kind.CLIENT)) {     // the hop to the client tier
                if (call != null) {
                    request.header(TraceFilter.HEADER, call.traceparent());
                    call.tag("http.url", uri);
                }
                response = exchange(request.build());
                if (call != null) {
                    call.tag("http.status_code", response.statusCode());
                }
            }
            return CloneAnswer.of(response.statusCode(), response.body(), uri);
        }
    }

    private HttpResponse<String> exchange(HttpRequest request) {
        CompletableFuture<HttpResponse<String>> call =
                http.sendAsync(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        try {
            return call.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            call.cancel(true);
            throw timedOut(request.uri(), e);
        } catch (InterruptedException e) {
            call.cancel(true);
            Thread.currentThread().interrupt();
            throw FrontException.badGateway(FrontException.CLIENT_TIER,
                    "call to " + request.uri() + " interrupted", e);
        } catch (ExecutionException e) {
            throw failed(request.uri(), e.getCause() == null ? e : e.getCause());
        }
    }

    private FrontException failed(URI uri, Throwable e) {
        if (e instanceof HttpConnectTimeoutException) {
            return FrontException.badGateway(FrontException.CLIENT_TIER, "unreachable: connecting to "
                    + uri.getHost() + ":" + uri.getPort() + " timed out", e);
        }
        if (e instanceof HttpTimeoutException) {
            return timedOut(uri, e);
        }
        if (e instanceof ConnectException) {
            return FrontException.badGateway(FrontException.CLIENT_TIER, "unreachable: cannot connect to "
                    + uri.getHost() + ":" + uri.getPort() + " (" + describe(e) + ")", e);
        }
        if (e instanceof IOException) {
            return FrontException.badGateway(FrontException.CLIENT_TIER,
                    "connection failed during GET " + uri + ": " + describe(e), e);
        }
        return FrontException.badGateway(FrontException.CLIENT_TIER, "call to " + uri + " failed: " + describe(e), e);
    }

    private FrontException timedOut(URI uri, Throwable e) {
        return FrontException.gatewayTimeout(FrontException.CLIENT_TIER, "no answer from " + uri
                + " within INVOKER_TIMEOUT_MS=" + timeout.toMillis() + " ms", e);
    }

    private static String describe(Throwable e) {
        String message = e.getMessage();
        return message == null || message.isBlank() ? e.getClass().getSimpleName() : message;
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
