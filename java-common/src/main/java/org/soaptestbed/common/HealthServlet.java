package org.soaptestbed.common;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * {@code GET /health}: 200 "ok" (text/plain), without calling any other tier. It is what
 * HAProxy's {@code option httpchk} and compose healthchecks probe.
 */
final class HealthServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private static final byte[] OK = "ok\n".getBytes(StandardCharsets.US_ASCII);

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        resp.setContentType("text/plain;charset=utf-8");
        resp.setHeader("Cache-Control", "no-store");
        resp.setContentLength(OK.length);
        resp.getOutputStream().write(OK);
    }
}
