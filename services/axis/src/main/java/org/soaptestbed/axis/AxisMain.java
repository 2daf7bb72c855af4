package org.soaptestbed.axis;

import java.net.InetAddress;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.soaptestbed.common.Env;
import org.soaptestbed.common.Logs;
import org.soaptestbed.common.TomcatServer;
import org.soaptestbed.common.TomcatSettings;
import org.soaptestbed.contract.Contract;

/**
 * The axis tier: {@code java -jar services/axis/target/axis.jar}. Reads its knobs once
 * ({@link TomcatSettings}, {@link AxisSettings}), builds the Axis2 engine from the
 * repository beside the jar, mounts it at /axis on embedded Tomcat and runs until SIGTERM.
 * A bad knob is reported by name and the process exits with status 2.
 */
public final class AxisMain {

    private static final Logger LOG = Logger.getLogger(AxisMain.class.getName());

    private AxisMain() {
    }

    public static void main(String[] args) throws Exception {
        Logs.configure();
        quietAxis2();
        TomcatSettings tomcat;
        AxisSettings axis;
        try {
            Env env = Env.system();
            tomcat = TomcatSettings.fromEnv(env, AxisSettings.DEFAULT_PORT);
            axis = AxisSettings.fromEnv(env);
        } catch (Env.BadValue e) {
            System.err.println("axis: configuration error: " + e.getMessage());
            System.exit(2);
            return;
        }
        try {
            TestbedService instance = new TestbedService(axis.demand(), hostName(),
                    (int) ProcessHandle.current().pid());
            Path repository = repository();
            AxisRuntime runtime = AxisRuntime.create(repository, axis, instance);
            TomcatServer server = new TomcatServer("axis", tomcat);
            server.addServlet("axis", new TestbedAxisServlet(runtime.context, runtime.service,
                    new ContractWsdl(Contract.wsdl())), "/axis");
            Map<String, Object> described = new LinkedHashMap<>(axis.describe());
            described.put("repository", repository);
            server.start(described);
            server.awaitStop();
        } catch (Exception | Error e) {
            LOG.log(Level.SEVERE, "axis: cannot start: " + e, e);
            System.exit(1);
        }
    }

    /**
     * Axis2 logs every fault with a stack trace and its deployment at INFO; the tier logs
     * Server faults itself ({@link Faults}) and keeps the rest to warnings.
     */
    private static void quietAxis2() {
        Logs.setLevel("org.apache.axis2", Level.WARNING);
        Logs.setLevel("org.apache.axiom", Level.WARNING);
        Logs.setLevel("org.apache.axis2.transport.http.AxisServlet", Level.OFF);
        Logs.setLevel("org.apache.axis2.engine.AxisEngine", Level.OFF);
        Logs.setLevel("org.apache.axis2.transport.http.HTTPTransportUtils", Level.OFF); // parse errors
    }

    /** target/repository beside target/axis.jar (or beside target/classes in a dev run). */
    private static Path repository() throws URISyntaxException {
        Path code = Path.of(AxisMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        return code.toAbsolutePath().getParent().resolve("repository");
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }
}
