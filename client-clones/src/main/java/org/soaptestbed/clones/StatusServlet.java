package org.soaptestbed.clones;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.axis2.context.ConfigurationContext;

/**
 * {@code GET /status}: the client lifecycle at work, without calling any service.
 *
 * <pre>
 * {"mode", "pool_size", "wsdl_loads", "calls", "errors", "in_flight", "bad_requests",
 *  "host", "pid", "soap_timeout_ms",
 *  "axis2_services":  client service descriptions registered in Axis2 now (constant
 *                     unless clients leak),
 *  "backends": {"axis"|"gsoap": {"endpoint", "wsdl_loads", "wsdl_failures",
 *               "wsdl_load_ms_mean", "calls", "errors", "clients_open",
 *               "client_time": {"calls", "wait_ns", "hold_ns", "hold_cpu_ns"}, ...mode-specific}},
 *  "gc": {"collections", "time_ns", "collectors"}}
 * </pre>
 * gc: the JVM's collections and their time since start ({@link GcTime}).
 * client_time sums, since start, each call's wait for a client, the time it held it (the
 * singleton's lock) and its thread's CPU while holding it ({@link ClientTime}).
 * wsdl_loads counts every WSDL fetched and parsed: one per backend in singleton mode, one
 * per call in request mode, CLIENT_POOL_SIZE per backend in pool mode.
 */
final class StatusServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    private final transient CloneConfig config;
    private final transient SwitchableLifecycle lifecycle;
    private final transient Stats stats;
    private final transient Identity identity;
    private final transient ConfigurationContext axis2;

    StatusServlet(CloneConfig config, SwitchableLifecycle lifecycle, Stats stats, Identity identity,
                  ConfigurationContext axis2) {
        this.config = config;
        this.lifecycle = lifecycle;
        this.stats = stats;
        this.identity = identity;
        this.axis2 = axis2;
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("mode", lifecycle.mode().label());
        body.put("pool_size", lifecycle.config().poolSize());
        body.put("wsdl_loads", stats.wsdlLoads());
        body.put("calls", stats.calls());
        body.put("errors", stats.errors());
        body.put("in_flight", stats.inFlight());
        body.put("bad_requests", stats.badRequests());
        body.put("host", identity.host());
        body.put("pid", identity.pid());
        body.put("soap_timeout_ms", config.soapTimeoutMs());
        body.put("axis2_services", axis2.getAxisConfiguration().getServices().size());
        Map<String, Object> backends = new LinkedHashMap<>();
        for (Backend b : config.backends()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("endpoint", config.endpoint(b).toString());
            m.putAll(stats.describe(b));
            m.putAll(lifecycle.describe(b));
            backends.put(b.label(), m);
        }
        body.put("backends", backends);
        body.put("gc", GcTime.describe());
        InvokeServlet.send(resp, 200, body);
    }
}
