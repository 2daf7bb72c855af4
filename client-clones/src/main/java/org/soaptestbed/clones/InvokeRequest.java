package org.soaptestbed.clones;

import java.util.Set;
import java.util.function.Function;
import org.soaptestbed.contract.Contract;

/**
 * The validated parameters of one {@code /invoke}:
 *
 * <pre>
 * backend    axis        axis | gsoap | own (when the tier has the user's own service: OWN_*)
 * op         ping        any contract operation (Contract.OPERATIONS); for own, OWN_OPERATION
 * n          0           items of the payload, 0..CLIENT_MAX_ITEMS (ignored by ping and work);
 *                        for own, the template's ${n}, 0..OwnTemplate.MAX_REPEAT
 * seed       1           seed of the contract's payload generator, an unsigned 64-bit integer
 * cpuMicros  0           work only: the service's CPU demand, 0..60 s in µs
 * waitMicros 0           work only: the service's wait, 0..60 s in µs
 * </pre>
 */
public record InvokeRequest(Backend backend, String op, int n, long seed, long cpuMicros, long waitMicros) {

    /** A parameter a caller got wrong; the message says which and what is expected (HTTP 400). */
    public static final class BadRequest extends Exception {
        private static final long serialVersionUID = 1L;

        public BadRequest(String message) {
            super(message);
        }
    }

    private static final Set<String> KNOWN = Set.of("backend", "op", "n", "seed", "cpuMicros", "waitMicros");

    /**
     * Reads the parameters through {@code param} (null when absent).
     *
     * @param names    every parameter name the request carries (unknown ones are refused,
     *                 so a typo like {@code wait=} is not silently ignored)
     * @param maxItems the largest n accepted
     */
    public static InvokeRequest parse(Function<String, String> param, Iterable<String> names, int maxItems)
            throws BadRequest {
        return parse(param, names, maxItems, null);
    }

    /** @param own the user's own service, or null when the tier has none (backend=own is refused) */
    public static InvokeRequest parse(Function<String, String> param, Iterable<String> names, int maxItems,
                                      OwnService own) throws BadRequest {
        for (String name : names) {
            if (!KNOWN.contains(name)) {
                throw new BadRequest("unknown parameter '" + name + "'; known: backend, op, n, seed, cpuMicros, waitMicros");
            }
        }
        String backendName = param.apply("backend");
        Backend backend = backendName == null ? Backend.AXIS : Backend.find(backendName);
        if (backend == null) {
            throw new BadRequest("backend='" + backendName + "': expected axis, gsoap or own");
        }
        if (backend == Backend.OWN) {
            return own(param, maxItems, own);
        }
        String op = param.apply("op");
        if (op == null) {
            op = "ping";
        } else if (!Contract.OPERATIONS.contains(op)) {
            throw new BadRequest("op='" + op + "': expected one of " + String.join(", ", Contract.OPERATIONS));
        }
        int n = (int) number(param, "n", 0, maxItems);
        long seed = seed(param.apply("seed"));
        long cpu = number(param, "cpuMicros", 0, Contract.MAX_WORK_MICROS);
        long wait = number(param, "waitMicros", 0, Contract.MAX_WORK_MICROS);
        if ((cpu != 0 || wait != 0) && !"work".equals(op)) {
            throw new BadRequest("cpuMicros and waitMicros apply to op=work only");
        }
        return new InvokeRequest(backend, op, n, seed, cpu, wait);
    }

    private static InvokeRequest own(Function<String, String> param, int maxItems, OwnService own)
            throws BadRequest {
        if (own == null) {
            throw new BadRequest("backend=own: this clone has no service of your own (start the stack with "
                    + "./testbed up --service WSDL)");
        }
        String op = param.apply("op");
        if (op != null && !op.isEmpty() && !op.equals(own.operation())) {
            throw new BadRequest("op='" + op + "': backend=own calls " + own.operation()
                    + " (the operation the stack was started with)");
        }
        if (param.apply("cpuMicros") != null || param.apply("waitMicros") != null) {
            throw new BadRequest("cpuMicros and waitMicros apply to the contract's op=work only");
        }
        int n = (int) number(param, "n", 0, Math.min(maxItems, OwnTemplate.MAX_REPEAT));
        return new InvokeRequest(Backend.OWN, own.operation(), n, seed(param.apply("seed")), 0, 0);
    }

    private static long number(Function<String, String> param, String name, long min, long max)
            throws BadRequest {
        String value = param.apply(name);
        if (value == null) {
            return min;
        }
        try {
            long v = Long.parseLong(value.trim());
            if (v >= min && v <= max) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new BadRequest(name + "='" + value + "': expected an integer from " + min + " to " + max);
    }

    /** 1 when absent; the uint64 is held in a long with the same bits. */
    private static long seed(String value) throws BadRequest {
        if (value == null) {
            return 1;
        }
        try {
            return Long.parseUnsignedLong(value.trim());
        } catch (NumberFormatException e) {
            throw new BadRequest("seed='" + value + "': expected an integer from 0 to 18446744073709551615");
        }
    }
}
