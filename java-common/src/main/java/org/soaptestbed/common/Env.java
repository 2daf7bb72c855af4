package org.soaptestbed.common;

import java.util.Map;
import java.util.Objects;

/**
 * Typed reads of a tier's environment variables, each with its default.
 *
 * <p>A tier reads its knobs once, at start-up, through one instance of this class. A value
 * that is set but malformed or out of range is never silently replaced by the default: it
 * raises {@link BadValue}, whose message names the variable, the value and the expected
 * form, so the tier can print it and exit.
 */
public final class Env {

    /**
     * A variable is set to something the tier cannot use; the message says what is expected.
     * Public, so that a tier's own checks (a URL, a mode name) read like those of this class.
     */
    public static final class BadValue extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        public BadValue(String name, String value, String expected) {
            super(name + "=" + quote(value) + " is not valid: expected " + expected);
        }

        private static String quote(String value) {
            return "'" + value.replace("'", "\\'") + "'";
        }
    }

    private final Map<String, String> vars;

    /** Reads the given variables (tests pass a map). */
    public Env(Map<String, String> vars) {
        this.vars = Map.copyOf(Objects.requireNonNull(vars));
    }

    /** Reads the process environment. */
    public static Env system() {
        return new Env(System.getenv());
    }

    /** The trimmed value, or null when the variable is unset or blank. */
    public String raw(String name) {
        String value = vars.get(name);
        if (value == null || value.isBlank()) {
            return null;
        }
        return value.trim();
    }

    public String string(String name, String defaultValue) {
        String value = raw(name);
        return value == null ? defaultValue : value;
    }

    /** An integer in [min, max]. */
    public int integer(String name, int defaultValue, int min, int max) {
        return (int) longInteger(name, defaultValue, min, max);
    }

    /** A long in [min, max]. */
    public long longInteger(String name, long defaultValue, long min, long max) {
        String value = raw(name);
        if (value == null) {
            return defaultValue;
        }
        String expected = "an integer from " + min + " to " + max;
        long parsed;
        try {
            parsed = Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new BadValue(name, value, expected);
        }
        if (parsed < min || parsed > max) {
            throw new BadValue(name, value, expected);
        }
        return parsed;
    }

    /** A flag: 1/true/yes/on or 0/false/no/off (any case). */
    public boolean flag(String name, boolean defaultValue) {
        String value = raw(name);
        if (value == null) {
            return defaultValue;
        }
        switch (value.toLowerCase(java.util.Locale.ROOT)) {
            case "1": case "true": case "yes": case "on":
                return true;
            case "0": case "false": case "no": case "off":
                return false;
            default:
                throw new BadValue(name, value, "1 or 0 (also true/false, yes/no, on/off)");
        }
    }

    /** A TCP port, 1..65535. */
    public int port(String name, int defaultValue) {
        return integer(name, defaultValue, 1, 65535);
    }
}
