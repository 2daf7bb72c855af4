package org.soaptestbed.clones;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.soaptestbed.common.Json;
import org.soaptestbed.contract.v1.WorkResponse;

/**
 * {@code GET|POST /invoke?backend=axis|gsoap|own&op=<operation>&n=<items>[&seed=S][&cpuMicros=&waitMicros=]}:
 * one SOAP call through the configured client lifecycle, its answer checked against the
 * local computation.
 *
 * <pre>
 * 200 {"clone": {"host", "pid", "mode"}, "backend", "op", "n", "seed", "ok": true,
 *      "count", "checksum", "echo_equal", "work": {"implementation", "host", "pid"}|null, "millis"}
 *      backend=own: "answer", the start of the SOAP Body's content the service answered</pre>
 * <pre>
 * 400 {"ok": false, "error": what is wrong with the parameters}
 * 502/503/504 {"ok": false, "tier": "soap-service"|"clone", "error", ...}  (see {@link Failure})
 * </pre>
 * DEMAND_CLONE_* is taken once per valid /invoke, before the call.
 */
final class InvokeServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = Logger.getLogger(InvokeServlet.class.getName());

    private final transient CloneConfig config;
    private final transient SwitchableLifecycle lifecycle;
    private final transient Stats stats;
    private final transient Identity identity;

    InvokeServlet(CloneConfig config, SwitchableLifecycle lifecycle, Stats stats, Identity identity) {
        this.config = config;
        this.lifecycle = lifecycle;
        this.stats = stats;
        this.identity = identity;
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        invoke(req, resp);
    }

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        invoke(req, resp);
    }

    private void invoke(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        long t0 = System.nanoTime();
        long deadline = t0 + config.soapTimeoutMs() * 1_000_000L;
        InvokeRequest r;
        try {
            r = InvokeRequest.parse(req::getParameter, Collections.list(req.getParameterNames()), config.maxItems(), config.own());
        } catch (InvokeRequest.BadRequest e) {
            stats.badRequest();
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("ok", false);
            body.put("error", e.getMessage());
            send(resp, 400, body);
            return;
        }
        stats.enter();
        try {
            config.demand().apply();
            SoapCall call = r.backend() == Backend.OWN ? SoapCall.own(config.own(), r.n()) : SoapCall.prepare(r);
            SoapCall.Result result;
            try {
                ClientTime.asking(stats, r.backend());
                try {
                    result = call.check(lifecycle.call(r.backend(), call, deadline));
                } finally {
                    ClientTime.done(stats, r.backend());
                }
            } catch (Exception e) {
                stats.called(r.backend(), false);
                fail(resp, r, Failure.of(e, config.soapTimeoutMs()));
                return;
            }
            stats.called(r.backend(), true);
            Map<String, Object> body = head(r);
            body.put("ok", true);
            body.put("count", result.count());
            body.put("checksum", result.checksum());
            body.put("echo_equal", result.echoEqual());
            body.put("work", work(result.work()));
            if (r.backend() == Backend.OWN) {
                body.put("answer", result.answer());
            }
            body.put("millis", Math.round((System.nanoTime() - t0) / 1000.0) / 1000.0);
            send(resp, 200, body);
        } finally {
            stats.leave();
        }
    }

    private Map<String, Object> head(InvokeRequest r) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("clone", identity.describe(lifecycle.mode()));
        body.put("backend", r.backend().label());
        body.put("op", r.op());
        body.put("n", r.n());
        body.put("seed", Long.toUnsignedString(r.seed()));
        return body;
    }

    private void fail(HttpServletResponse resp, InvokeRequest r, Failure f) throws IOException {
        LOG.log(Level.FINE, "/invoke failed", f);
        Map<String, Object> body = head(r);
        body.put("ok", false);
        body.put("tier", f.tier());
        body.put("error", f.getMessage());
        send(resp, f.status(), body);
    }

    private static Map<String, Object> work(WorkResponse w) {
        if (w == null) {
            return null;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("implementation", w.getImplementation());
        m.put("host", w.getHost());
        m.put("pid", w.getPid());
        return m;
    }

    static void send(HttpServletResponse resp, int status, Map<String, Object> body) throws IOException {
        byte[] bytes = Json.write(body).concat("\n").getBytes(StandardCharsets.UTF_8);
        resp.setStatus(status);
        resp.setContentType("application/json;charset=utf-8");
        resp.setHeader("Cache-Control", "no-store");
        resp.setContentLength(bytes.length);
        resp.getOutputStream().write(bytes);
    }
}
