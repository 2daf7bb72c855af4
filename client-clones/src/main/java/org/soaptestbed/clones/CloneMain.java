package org.soaptestbed.clones;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.axis2.AxisFault;
import org.apache.axis2.context.ConfigurationContext;
import org.apache.axis2.context.ConfigurationContextFactory;
import org.soaptestbed.common.AdminGate;
import org.soaptestbed.common.Env;
import org.soaptestbed.common.Logs;
import org.soaptestbed.common.TomcatServer;
import org.soaptestbed.common.TomcatSettings;

/**
 * The client tier ("clone"): reads its knobs once ({@link CloneConfig}, TOMCAT_*), starts
 * the Axis2 client runtime and the chosen {@link ClientLifecycle}, builds its clients from
 * the services' WSDLs, serves /invoke, /status, /probe/build and /lifecycle (with the stack's admin token only:
 * {@link AdminGate}) and /health on an embedded Tomcat, and stops gracefully on SIGTERM.
 *
 * <p>Exit status 2: a knob is set to something unusable (the message names it and what is
 * expected); 1: the tier could not start (port in use, Axis2 runtime unusable).
 */
public final class CloneMain {

    /** The container-side port; the local stack and tests always set PORT. */
    static final int DEFAULT_PORT = 8080;
    private static final Logger LOG = Logger.getLogger(CloneMain.class.getName());

    private CloneMain() {
    }

    public static void main(String[] args) throws Exception {
        Logs.configure();
        // Axis2 logs every refused connection with a stack trace at INFO: the JSON answer
        // already says it, once.
        Logs.setLevel("org.apache.axis2", Level.WARNING);
        Logs.setLevel("org.apache.axiom", Level.WARNING);
        Logs.setLevel("org.apache.hc", Level.WARNING);

        Env env = Env.system();
        TomcatSettings tomcat;
        CloneConfig config;
        AdminGate admin;
        try {
            tomcat = TomcatSettings.fromEnv(env, DEFAULT_PORT);
            config = CloneConfig.fromEnv(env);
            admin = AdminGate.fromEnv(env);
        } catch (IllegalArgumentException e) {   // Env.BadValue
            System.err.println("clone: " + e.getMessage());
            System.exit(2);
            return;
        }

        ConfigurationContext axis2 = axis2Runtime();
        Stats stats = new Stats();
        ClientFactory factory = new ClientFactory(axis2, config, stats);
        // the lifecycle registers its ClientTime beans (Prometheus' JMX exporter reads them)
        SwitchableLifecycle lifecycle = new SwitchableLifecycle(config, factory, stats);
        Identity identity = Identity.current();

        // The clients are built from the services' WSDLs before the tier listens, so a replica
        // that answers /health is ready (pool: all its clients exist). A service that is down
        // costs a refused connection here; its clients are then built by the first calls.
        lifecycle.warmUp();

        TomcatServer server = new TomcatServer("clone", tomcat);
        server.addServlet("invoke", new InvokeServlet(config, lifecycle, stats, identity), "/invoke");
        server.addServlet("status", new StatusServlet(config, lifecycle, stats, identity, axis2), "/status");
        // the probe costs up to 64 threads for 60 s: only with the stack's admin token (AdminGate)
        server.addServlet("build-probe", admin.guard(new BuildProbeServlet(config, factory)), "/probe/build");
        // a new client lifecycle without a restart: the JIT's work stays (SwitchableLifecycle)
        server.addServlet("lifecycle", admin.guard(new LifecycleServlet(lifecycle)), "/lifecycle");
        try {
            Map<String, Object> described = new LinkedHashMap<>(config.describe());
            described.put("ADMIN", admin.configured() ? "token" : "none (admin endpoints refused)");
            server.start(described);
        } catch (Exception e) {
            LOG.severe("clone: cannot start: " + e.getMessage());
            System.exit(1);
            return;
        }

        server.awaitStop();
        lifecycle.close();
        try {
            axis2.terminate();
        } catch (AxisFault e) {
            LOG.fine(() -> "Axis2 runtime did not stop cleanly: " + e);
        }
    }

    /** The client-only axis2.xml every client of this process runs in (see the file). */
    static final String AXIS2_XML = "org/soaptestbed/clones/axis2-client.xml";

    /** The Axis2 engine every client of this process runs in. */
    private static ConfigurationContext axis2Runtime() {
        try {
            return ConfigurationContextFactory.createBasicConfigurationContext(AXIS2_XML);
        } catch (Exception e) {
            LOG.log(Level.SEVERE, "clone: cannot create the Axis2 client runtime", e);
            System.exit(1);
            return null;
        }
    }
}
