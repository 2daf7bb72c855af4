package org.soaptestbed.common;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * {@code GET /health}: 200 "ok" (text/plain), without calling any other tier; 404
 * "draining" once the tier was told to stop ({@link Drain}). It is what HAProxy's
 * {@code option httpchk} and compose healthchecks probe.
 */
final class HealthServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private static final byte[] OK = "ok\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DRAINING = "draining\n".getBytes(StandardCharsets.US_ASCII);

    private final transient Drain drain;

    HealthServlet(Drain drain) {
        this.drain = drain;
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        boolean draining = drain.healthChecked();
        byte[] body = draining ? DRAINING : OK;
        resp.setStatus(draining ? HttpServletResponse.SC_NOT_FOUND : HttpServletResponse.SC_OK);
        resp.setContentType("text/plain;charset=utf-8");
        resp.setHeader("Cache-Control", "no-store");
        resp.setContentLength(body.length);
        resp.getOutputStream().write(body);
    }
}
