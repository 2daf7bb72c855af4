package org.soaptestbed.common;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Every request but the tier's own {@code /health} and {@code /served}: tells the {@link Drain}
 * one arrived, and counts it in {@link Served} with the status it got.
 */
final class DrainFilter implements Filter {
    private final Drain drain;
    private final Served served;

    DrainFilter(Drain drain, Served served) {
        this.drain = drain;
        this.served = served;
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse resp, FilterChain chain)
            throws IOException, ServletException {
        String path = req instanceof HttpServletRequest http ? http.getServletPath() : "";
        if ("/health".equals(path) || "/served".equals(path)) {
            chain.doFilter(req, resp);
            return;
        }
        drain.requestArrived();
        served.started();
        int status = 500;
        try {
            chain.doFilter(req, resp);
            status = resp instanceof HttpServletResponse http ? http.getStatus() : 200;
        } finally {
            served.finished(status);
        }
    }
}
