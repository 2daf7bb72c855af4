package org.soaptestbed.serialization;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.Map;
import org.soaptestbed.contract.cli.LineServer;

/**
 * The Axis2/ADB side of the serialization study (docs/method.md, "Serialization cost"). Every command prints
 * one JSON object; {@code serve} reads command lines from stdin and answers each with one
 * JSON line, so one warm JVM serves a whole study run.
 */
public final class Main {

    static final String USAGE = String.join("\n",
        "java -jar serialization-study.jar COMMAND [flags]   (studies/serialization)",
        "  message --op OP --n N [--seed S] [--socket 1] [--dump FILE] [--dump-http FILE]",
        "                                                   sizes, ADB (de)serialization times",
        "  writers --n N [--seed S]                         N ints: printf-style, ADB, hand, itoa",
        "  mtom --endpoint URL --n N [--form base64|mtom] [--calls K]",
        "                                                   sendIntBuffer, base64 or MTOM attachment",
        "  serve                                            one command per stdin line, JSON per line",
        "Timing: --jit-seconds J (1.0) JIT warm-up, --warmup W (1) runs not kept, then",
        "--min-runs K (3) rounds and --min-seconds T (0.2), at most --max-runs M (100000).",
        "Exit: 0 ok, 1 a check failed, 2 usage error, 3 failure.",
        "Operations: " + Message.OPERATIONS);

    private static final ObjectMapper JSON = new ObjectMapper();   // nulls written, maps in order

    private Main() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("java.util.logging.config.file", "/dev/null");  // Axis2's INFO lines off stdout
        try (Clients clients = new Clients()) {
            if (args.length > 0 && args[0].equals("serve")) {
                LineServer.serve(System.in, System.out, argv -> JSON.writeValueAsString(run(argv, clients)));
                return;
            }
            Map<String, Object> out = run(args, clients);
            System.out.println(JSON.writeValueAsString(out));
            System.exit(status(out));
        }
    }

    private static int status(Map<String, Object> out) {
        if (out.containsKey("usage_error")) {
            return 2;
        }
        if (out.containsKey("error")) {
            return 3;
        }
        return Boolean.TRUE.equals(out.get("valid")) ? 0 : 1;
    }

    /** One command; failures become {"error": ...} or {"usage_error": ...}. */
    static Map<String, Object> run(String[] args, Clients clients) {
        Map<String, Object> out = new LinkedHashMap<>();
        try {
            Options o = Options.parse(args);
            switch (o.command) {
                case "message":
                    return MessageCommand.run(o, clients);
                case "writers":
                    return WritersCommand.run(o);
                case "mtom":
                    return MtomCommand.run(o, clients);
                default:
                    out.put("usage", USAGE);
                    out.put("valid", true);
                    return out;
            }
        } catch (Options.UsageError e) {
            out.put("usage_error", e.getMessage());
        } catch (Exception | OutOfMemoryError | StackOverflowError e) {
            out.put("error", e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        return out;
    }
}
