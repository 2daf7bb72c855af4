package org.soaptestbed.common.trace;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Enumeration;

/**
 * The tier's SERVER span: for a request whose {@code traceparent} is sampled, a span named
 * {@code <method> <path>} (Zipkin lower-cases it: {@code get /seg/5}) from the filter's entry to
 * the end of the chain, current on the thread meanwhile, with the status and any exception as
 * tags. Installed first in the chain ({@code TomcatServer}) only while tracing is on. A request
 * with two {@code traceparent} headers (any case of the name) has no valid context: untraced.
 */
public final class TraceFilter implements Filter {

    public static final String HEADER = "traceparent";

    @Override
    public void doFilter(ServletRequest req, ServletResponse resp, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest r = (HttpServletRequest) req;
        Span span = Tracer.server(only(r.getHeaders(HEADER)), r.getMethod() + " " + r.getRequestURI());
        if (span == null) {
            chain.doFilter(req, resp);
            return;
        }
        try {
            span.tag("http.method", r.getMethod()).tag("http.path", r.getRequestURI());
            chain.doFilter(req, resp);
        } catch (IOException | ServletException | RuntimeException e) {
            span.tag("error", e.getClass().getSimpleName());
            throw e;
        } finally {
            int status = ((HttpServletResponse) resp).getStatus();
            span.tag("http.status_code", status);
            if (status >= 500) {
                span.tag("error", String.valueOf(status));
            }
            span.close();
        }
    }

    /** The one value of a header, or null when it is absent or repeated. */
    static String only(Enumeration<String> values) {
        if (values == null || !values.hasMoreElements()) {
            return null;
        }
        String first = values.nextElement();
        return values.hasMoreElements() ? null : first;
    }
}
