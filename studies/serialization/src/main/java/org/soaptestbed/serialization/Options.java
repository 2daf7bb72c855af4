package org.soaptestbed.serialization;

/** A command line of the study's Java side (Main.USAGE lists the flags). */
final class Options {

    /** A usage error: the message names the flag and the fix. */
    static final class UsageError extends Exception {
        UsageError(String message) {
            super(message);
        }
    }

    String command;
    String op = "sendInts";
    int n = 1000;
    long seed = 1;
    boolean socket;
    String endpoint;
    String form = "base64";
    String dump;       // message: the envelope into this file
    String dumpHttp;   // message: the whole HTTP request into this file
    int calls = 3;
    final Timing timing = new Timing();

    static Options parse(String[] args) throws UsageError {
        if (args.length == 0) {
            throw new UsageError("a command is required: message, writers, mtom or serve (--help)");
        }
        Options o = new Options();
        o.command = args[0];
        if (!o.command.matches("message|writers|mtom|serve|--help|-h")) {
            throw new UsageError("unknown command '" + o.command + "': message, writers, mtom or serve");
        }
        for (int i = 1; i < args.length; i++) {
            String flag = args[i];
            if (i + 1 >= args.length) {
                throw new UsageError(flag + " needs a value (--help)");
            }
            String v = args[++i];
            switch (flag) {
                case "--op" -> o.op = v;
                case "--n" -> o.n = (int) number(flag, v, 0, 100_000_000);
                case "--seed" -> o.seed = Long.parseUnsignedLong(v);
                case "--socket" -> o.socket = v.equals("1") || v.equals("true");
                case "--endpoint" -> o.endpoint = v;
                case "--form" -> o.form = v;
                case "--dump" -> o.dump = v;
                case "--dump-http" -> o.dumpHttp = v;
                case "--calls" -> o.calls = (int) number(flag, v, 1, 1_000_000);
                case "--warmup" -> o.timing.warmup = (int) number(flag, v, 0, 1000);
                case "--min-runs" -> o.timing.minRuns = (int) number(flag, v, 1, 1_000_000);
                case "--max-runs" -> o.timing.maxRuns = (int) number(flag, v, 1, 10_000_000);
                case "--min-seconds" -> o.timing.minSeconds = seconds(flag, v);
                case "--jit-seconds" -> o.timing.jitSeconds = seconds(flag, v);
                default -> throw new UsageError("unknown flag " + flag + " (--help)");
            }
        }
        if (o.command.equals("message") && Message.of(o.op, 0, o.seed) == null) {
            throw new UsageError("--op '" + o.op + "': one of " + Message.OPERATIONS);
        }
        if (o.command.equals("mtom") && (o.endpoint == null || !o.endpoint.startsWith("http://"))) {
            throw new UsageError("--endpoint must be the http:// URL of the service, e.g. http://127.0.0.1:8090/axis");
        }
        if (!o.form.equals("base64") && !o.form.equals("mtom")) {
            throw new UsageError("--form '" + o.form + "': base64 or mtom");
        }
        return o;
    }

    private static long number(String flag, String v, long lo, long hi) throws UsageError {
        try {
            long x = Long.parseLong(v);
            if (x >= lo && x <= hi) {
                return x;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new UsageError(flag + " '" + v + "': a whole number " + lo + ".." + hi);
    }

    private static double seconds(String flag, String v) throws UsageError {
        try {
            double d = Double.parseDouble(v);
            if (d >= 0 && d <= 600) {
                return d;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new UsageError(flag + " '" + v + "': seconds, 0 to 600 (e.g. 0.2)");
    }
}
