package org.soaptestbed.common;

import jakarta.servlet.GenericServlet;
import jakarta.servlet.Servlet;
import jakarta.servlet.ServletConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Who may use a tier's admin endpoints (those that cost CPU or change state on request, such as
 * the clone's build probe): a request that carries the stack's admin token in
 * {@value #HEADER}, and nobody else. The token is made by {@code ./testbed up}, kept in the
 * stack's state folder (mode 0600) and handed to the tier in {@value #ENV}; a tier started
 * without it refuses every admin request. Where the request came from is not the rule: in
 * local mode HAProxy itself connects from loopback.
 *
 * <p>The check sits in the servlet itself ({@link #guard}), after Tomcat has mapped the request:
 * every spelling of the path that reaches the servlet ({@code //probe/build},
 * {@code /x/../probe/build}, {@code /%70robe/build} ...) meets it. Read-only endpoints
 * (/health, /served, /status) stay open.
 */
public final class AdminGate {
    public static final String ENV = "TESTBED_ADMIN_TOKEN";
    public static final String HEADER = "X-Testbed-Admin-Token";
    static final int MIN_LENGTH = 16;
    private static final Pattern FORM = Pattern.compile("[A-Za-z0-9._~-]{" + MIN_LENGTH + ",256}");

    private final byte[] token;      // null: none given, every admin request is refused

    AdminGate(String token) {
        this.token = token == null ? null : token.getBytes(StandardCharsets.US_ASCII);
    }

    /** The gate of {@value #ENV}; a token that is set but too short or malformed is refused. */
    public static AdminGate fromEnv(Env env) {
        String value = env.raw(ENV);
        if (value != null && !FORM.matcher(value).matches()) {
            // the value itself is never printed: it is a credential
            throw new Env.BadValue(ENV, "(" + value.length() + " characters, not shown)",
                    MIN_LENGTH + " to 256 characters of A-Z a-z 0-9 . _ ~ - (./testbed up makes one)");
        }
        return new AdminGate(value);
    }

    /** A token is configured (else every admin request is refused). */
    public boolean configured() {
        return token != null;
    }

    /** The request carries the token, exactly once. */
    public boolean entitled(HttpServletRequest req) {
        if (token == null) {
            return false;
        }
        List<String> given = Collections.list(req.getHeaders(HEADER));
        return given.size() == 1
                && MessageDigest.isEqual(token, given.get(0).trim().getBytes(StandardCharsets.UTF_8));
    }

    /** The servlet behind this gate: a request without the token gets 403 and never reaches it. */
    public Servlet guard(Servlet servlet) {
        return new Guarded(this, servlet);
    }

    void refuse(HttpServletResponse resp) throws IOException {
        String why = token == null
                ? "an admin endpoint: this tier was started without " + ENV + ", so it refuses every admin request"
                : "an admin endpoint: send the stack's admin token in " + HEADER + " (docs/tiers.md)";
        byte[] body = (Json.write(Map.of("error", why)) + "\n").getBytes(StandardCharsets.UTF_8);
        resp.setStatus(HttpServletResponse.SC_FORBIDDEN);
        resp.setContentType("application/json");
        resp.setHeader("Cache-Control", "no-store");
        resp.setContentLength(body.length);
        resp.getOutputStream().write(body);
    }

    /** A servlet that answers only entitled requests; its life cycle is the inner one's. */
    private static final class Guarded extends GenericServlet {
        private static final long serialVersionUID = 1L;
        private final transient AdminGate gate;
        private final transient Servlet inner;

        Guarded(AdminGate gate, Servlet inner) {
            this.gate = gate;
            this.inner = inner;
        }

        @Override
        public void init(ServletConfig config) throws ServletException {
            super.init(config);
            inner.init(config);
        }

        @Override
        public void service(ServletRequest req, ServletResponse resp) throws ServletException, IOException {
            if (!(req instanceof HttpServletRequest http) || !(resp instanceof HttpServletResponse out)) {
                throw new ServletException("an admin endpoint answers HTTP only");
            }
            if (!gate.entitled(http)) {
                gate.refuse(out);
                return;
            }
            inner.service(req, resp);
        }

        @Override
        public void destroy() {
            inner.destroy();
        }
    }
}
