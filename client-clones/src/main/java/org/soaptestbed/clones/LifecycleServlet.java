package org.soaptestbed.clones;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code GET /lifecycle}: the client lifecycle this replica runs ({"mode", "pool_size"}).
 * {@code POST /lifecycle?mode=request|singleton|pool[&pool_size=N]}: switches it while the JVM
 * runs ({@link SwitchableLifecycle}: its compiled code stays) and answers once the new lifecycle
 * is ready — a pool's clients built — with {"mode", "pool_size", "previous", "switched",
 * "warm_up_ms"}. A bad mode or size answers 400 naming what is accepted. Mounted behind the
 * stack's admin token (CloneMain, {@code org.soaptestbed.common.AdminGate}): without it, 403.
 */
final class LifecycleServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    static final int MAX_POOL = 1024;            // CLIENT_POOL_SIZE's own range (CloneConfig)

    private final transient SwitchableLifecycle lifecycle;

    LifecycleServlet(SwitchableLifecycle lifecycle) {
        this.lifecycle = lifecycle;
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("mode", lifecycle.mode().label());
        body.put("pool_size", lifecycle.config().poolSize());
        InvokeServlet.send(resp, 200, body);
    }

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        ClientMode mode;
        int poolSize;
        try {
            mode = ClientMode.parse(req.getParameter("mode"));
            String size = req.getParameter("pool_size");
            poolSize = size == null ? lifecycle.config().poolSize() : parseSize(size);
        } catch (IllegalArgumentException e) {       // Env.BadValue too
            InvokeServlet.send(resp, 400, Map.of("error", e.getMessage()));
            return;
        }
        InvokeServlet.send(resp, 200, lifecycle.switchTo(mode, poolSize));
    }

    static int parseSize(String value) {
        try {
            int n = Integer.parseInt(value.trim());
            if (n >= 1 && n <= MAX_POOL) {
                return n;
            }
        } catch (NumberFormatException e) {
            // the message below
        }
        throw new IllegalArgumentException("pool_size must be a whole number from 1 to " + MAX_POOL + ", not '" + value + "'");
    }
}
