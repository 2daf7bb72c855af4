package org.soaptestbed.contract.cli;

import java.net.URI;
import java.util.Locale;
import org.soaptestbed.contract.Contract;

/**
 * The command line of the interop clients (docs/tiers.md, "Client command-line tools"):
 *
 * <pre>
 * --endpoint URL     the service endpoint, e.g. http://127.0.0.1:8082/axis   (required)
 * --op OP            a contract operation: ping sendBytes sendInts sendFloats sendDoubles
 *                    sendIntBuffer echoInts work                          (required)
 * --n N              items in the payload (seeded generator)              default 0
 * --seed S           generator seed, an unsigned 64-bit integer           default 1
 * --calls K          calls to make                                        default 1
 * --connections C    parallel keep-alive connections (one thread each)    default 1
 * --cpu-us X         work: cpuMicros                                      default 0
 * --wait-us Y        work: waitMicros                                     default 0
 * --json             print one JSON object instead of text
 * </pre>
 */
record CallOptions(String endpoint, String op, int n, long seed, int calls, int connections,
                   long cpuMicros, long waitMicros, boolean json) {

    /** Largest --n: the service's default element limit is 10,000,000 items. */
    static final int MAX_N = 10_000_000;
    static final int MAX_CALLS = 100_000_000;
    static final int MAX_CONNECTIONS = 1024;

    /** A bad command line; the message says how to fix it. Exit status 2. */
    static final class UsageError extends Exception {
        private static final long serialVersionUID = 1L;

        UsageError(String message) {
            super(message);
        }
    }

    /** Thrown for -h/--help: print the usage and exit 0. */
    static final class HelpRequested extends Exception {
        private static final long serialVersionUID = 1L;
    }

    static final String USAGE = String.join("\n",
            "usage: java -jar contract.jar --endpoint URL --op OP [--n N] [--seed S] [--calls K]",
            "                              [--connections C] [--cpu-us X] [--wait-us Y] [--json]",
            "",
            "Calls a testbed SOAP service with the Axis2 client generated from the contract and",
            "checks every answer (send*: count and FNV-1a checksum; echoInts: the echo).",
            "",
            "  --endpoint URL    service endpoint, e.g. http://127.0.0.1:8082/axis (required)",
            "  --op OP           " + String.join(" ", Contract.OPERATIONS) + " (required)",
            "  --n N             items from the seeded generator (default 0, at most " + MAX_N + ")",
            "  --seed S          generator seed, unsigned 64-bit (default 1)",
            "  --calls K         calls to make (default 1)",
            "  --connections C   parallel keep-alive connections, one thread each (default 1)",
            "  --cpu-us X        work: cpuMicros (default 0)",
            "  --wait-us Y       work: waitMicros (default 0)",
            "  --json            print one JSON object (keys: docs/tiers.md)",
            "",
            "exit status: 0 every call succeeded and checked; 1 a checksum, count or echo",
            "mismatch; 2 usage error; 3 a fault or transport error (1 wins over 3).");

    static CallOptions parse(String[] args) throws UsageError, HelpRequested {
        String endpoint = null;
        String op = null;
        int n = 0;
        long seed = 1;
        int calls = 1;
        int connections = 1;
        long cpu = 0;
        long wait = 0;
        boolean json = false;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                value = arg.substring(eq + 1);
                arg = arg.substring(0, eq);
            }
            switch (arg) {
                case "-h", "--help" -> throw new HelpRequested();
                case "--json" -> json = true;
                case "--endpoint", "--op", "--n", "--seed", "--calls", "--connections",
                        "--cpu-us", "--wait-us" -> {
                    if (value == null) {
                        if (i + 1 >= args.length) {
                            throw new UsageError(arg + " needs a value, e.g. " + arg + " " + example(arg));
                        }
                        value = args[++i];
                    }
                    switch (arg) {
                        case "--endpoint" -> endpoint = value;
                        case "--op" -> op = value;
                        case "--n" -> n = (int) number(arg, value, 0, MAX_N);
                        case "--seed" -> seed = seed(value);
                        case "--calls" -> calls = (int) number(arg, value, 1, MAX_CALLS);
                        case "--connections" -> connections = (int) number(arg, value, 1, MAX_CONNECTIONS);
                        case "--cpu-us" -> cpu = number(arg, value, 0, Contract.MAX_WORK_MICROS);
                        default -> wait = number(arg, value, 0, Contract.MAX_WORK_MICROS);
                    }
                }
                default -> throw new UsageError("unknown argument " + quote(args[i])
                        + "; see --help for the arguments");
            }
        }
        if (endpoint == null) {
            throw new UsageError("--endpoint is required, e.g. --endpoint http://127.0.0.1:8082/axis");
        }
        checkEndpoint(endpoint);
        if (op == null) {
            throw new UsageError("--op is required: one of " + String.join(", ", Contract.OPERATIONS));
        }
        if (!Contract.OPERATIONS.contains(op)) {
            throw new UsageError("--op " + quote(op) + " is not a contract operation; use one of "
                    + String.join(", ", Contract.OPERATIONS));
        }
        return new CallOptions(endpoint, op, n, seed, calls, connections, cpu, wait, json);
    }

    private static void checkEndpoint(String endpoint) throws UsageError {
        try {
            URI uri = new URI(endpoint);
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("http") || uri.getHost() == null) {
                throw new UsageError("--endpoint " + quote(endpoint)
                        + " must be an http:// URL with a host, e.g. http://127.0.0.1:8082/axis");
            }
        } catch (java.net.URISyntaxException e) {
            throw new UsageError("--endpoint " + quote(endpoint) + " is not a URL: " + e.getMessage());
        }
    }

    private static long number(String flag, String value, long min, long max) throws UsageError {
        try {
            long v = Long.parseLong(value.trim());
            if (v >= min && v <= max) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new UsageError(flag + " " + quote(value) + ": expected an integer from " + min + " to " + max);
    }

    private static long seed(String value) throws UsageError {
        try {
            return Long.parseUnsignedLong(value.trim());
        } catch (NumberFormatException e) {
            throw new UsageError("--seed " + quote(value)
                    + ": expected an unsigned 64-bit integer (0 to 18446744073709551615)");
        }
    }

    private static String example(String flag) {
        return switch (flag) {
            case "--endpoint" -> "http://127.0.0.1:8082/axis";
            case "--op" -> "sendInts";
            case "--seed" -> "1";
            default -> "1000";
        };
    }

    private static String quote(String s) {
        return "'" + s + "'";
    }

    /** The seed as the contract writes it (unsigned). */
    String seedText() {
        return Long.toUnsignedString(seed);
    }
}
