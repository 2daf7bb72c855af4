package org.soaptestbed.common;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** {@code GET /served}: the tier's {@link Served} counters as JSON. */
final class ServedServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private final transient Served served;

    ServedServlet(Served served) {
        this.served = served;
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        byte[] body = (served.json() + "\n").getBytes(StandardCharsets.US_ASCII);
        resp.setContentType("application/json");
        resp.setHeader("Cache-Control", "no-store");
        resp.setContentLength(body.length);
        resp.getOutputStream().write(body);
    }
}
