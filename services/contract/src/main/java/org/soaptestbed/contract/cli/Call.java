package org.soaptestbed.contract.cli;

import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.soaptestbed.contract.ClientConfig;

/**
 * The Axis2 interop client: {@code java -jar contract.jar --endpoint URL --op OP ...}.
 * Arguments, JSON keys and exit status are those of docs/tiers.md, shared with the gSOAP
 * client; see {@link CallOptions} or {@code --help}.
 *
 * <p>{@code java -jar contract.jar serve} keeps one JVM for many calls (the test suites'
 * way: an Axis2 client's start-up costs about a second of CPU): each stdin line holds the
 * arguments of one command line, each answer is the {@code --json} object on one line with
 * its exit status as {@code "exit"} ({@code {"usage_error": ..., "exit": 2}} for a bad line,
 * {@code {"error": ..., "exit": 3}} when the client cannot be set up); {@code quit} or the
 * end of stdin ends it.
 */
public final class Call {

    /** Axis2's own logging (java.util.logging) kept to warnings; output is ours. */
    private static final Logger AXIS2_LOG = Logger.getLogger("org.apache.axis2");

    private Call() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("serve")) {
            LineServer.serve(System.in, System.out, argv -> Report.write(answer(argv)));
            return;
        }
        System.exit(run(args));
    }

    /** One command line's answer in serve mode: the JSON of --json, with "exit". */
    static Map<String, Object> answer(String[] args) {
        CallOptions options;
        try {
            options = CallOptions.parse(args);
        } catch (CallOptions.HelpRequested e) {
            return Map.of("usage", CallOptions.USAGE, "exit", 0);
        } catch (CallOptions.UsageError e) {
            return Map.of("usage_error", e.getMessage(), "exit", 2);
        }
        AXIS2_LOG.setLevel(Level.SEVERE);
        try {
            Run.Result result = Run.execute(options, ClientConfig.create());
            Map<String, Object> m = Report.json(options, result);
            m.put("exit", Report.exitStatus(result));
            return m;
        } catch (Exception e) {
            return Map.of("error", "cannot set up the Axis2 client: " + Run.describe(e), "exit", 3);
        }
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
