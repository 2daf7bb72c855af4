package org.soaptestbed.clones;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import org.soaptestbed.common.Env;

/**
 * How the tier's SOAP clients live ({@code CLIENT_MODE}, read once at start-up). The three
 * lifecycles of the clone-scaling experiment (docs/method.md, "Clone scaling and the client
 * lifecycles"):
 *
 * <pre>
 * singleton  one client per backend, built once from the WSDL; every call goes through
 *            one synchronized method (the classic bottleneck)
 * request    a fresh client per call: WSDL fetched and parsed, stub built, used once, closed
 * pool       CLIENT_POOL_SIZE clients per backend built from the WSDL at start-up; a call
 *            borrows one
 * </pre>
 */
public enum ClientMode {
    SINGLETON, REQUEST, POOL;

    public static final String VARIABLE = "CLIENT_MODE";

    /** The mode named by {@code value} (any case); a clear {@link Env.BadValue} otherwise. */
    public static ClientMode parse(String value) {
        if (value != null) {
            for (ClientMode mode : values()) {
                if (mode.label().equalsIgnoreCase(value.trim())) {
                    return mode;
                }
            }
        }
        throw new Env.BadValue(VARIABLE, String.valueOf(value), "one of "
                + Arrays.stream(values()).map(ClientMode::label).collect(Collectors.joining(", ")));
    }

    /** Reads {@code CLIENT_MODE}; unset means singleton. */
    public static ClientMode fromEnv(Env env) {
        String value = env.raw(VARIABLE);
        return value == null ? SINGLETON : parse(value);
    }

    /** The name used in the environment and in JSON answers. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
