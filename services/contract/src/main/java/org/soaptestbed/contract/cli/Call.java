package org.soaptestbed.contract.cli;

import java.util.logging.Level;
import java.util.logging.Logger;
import org.soaptestbed.contract.ClientConfig;

/**
 * The Axis2 interop client: {@code java -jar contract.jar --endpoint URL --op OP ...}.
 * Arguments, JSON keys and exit status are those of docs/tiers.md, shared with the gSOAP
 * client; see {@link CallOptions} or {@code --help}.
 */
public final class Call {

    /** Axis2's own logging (java.util.logging) kept to warnings; output is ours. */
    private static final Logger AXIS2_LOG = Logger.getLogger("org.apache.axis2");

    private Call() {
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String[] args) {
        CallOptions options;
        try {
            options = CallOptions.parse(args);
        } catch (CallOptions.HelpRequested e) {
            System.out.println(CallOptions.USAGE);
            return 0;
        } catch (CallOptions.UsageError e) {
            System.err.println("error: " + e.getMessage());
            return 2;
        }
        AXIS2_LOG.setLevel(Level.SEVERE);
        Run.Result result;
        try {
            result = Run.execute(options, ClientConfig.create());
        } catch (Exception e) {
            System.err.println("error: cannot set up the Axis2 client: " + Run.describe(e));
            return 3;
        }
        System.out.print(options.json() ? Report.write(Report.json(options, result)) + "\n"
                : Report.text(options, result));
        System.out.flush();
        return Report.exitStatus(result);
    }
}
