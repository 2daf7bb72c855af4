package org.soaptestbed.common;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;

/** Tells the {@link Drain} when a request other than {@code /health} arrives. */
final class DrainFilter implements Filter {
    private final Drain drain;

    DrainFilter(Drain drain) {
        this.drain = drain;
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse resp, FilterChain chain)
            throws IOException, ServletException {
        if (!(req instanceof HttpServletRequest http) || !"/health".equals(http.getServletPath())) {
            drain.requestArrived();
        }
        chain.doFilter(req, resp);
    }
}
