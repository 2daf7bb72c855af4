package org.soaptestbed.servers;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The {@code --name value} options of one sub-command. Every option has a default and a range;
 * an unknown name, a missing value or a value out of range raises {@link Bad}, whose message
 * names the option and what is expected.
 */
final class Options {

    /** The command line is wrong; the message says how. */
    static final class Bad extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        Bad(String message) {
            super(message);
        }
    }

    private final Map<String, String> values = new LinkedHashMap<>();

    Options(String[] args, int from, Set<String> known) {
        for (int i = from; i < args.length; i += 2) {
            String name = args[i];
            if (!name.startsWith("--") || !known.contains(name.substring(2))) {
                throw new Bad("unknown option " + name + "; known: --" + String.join(", --", known));
            }
            if (i + 1 >= args.length) {
                throw new Bad(name + " needs a value");
            }
            values.put(name.substring(2), args[i + 1]);
        }
    }

    String text(String name, String dflt) {
        return values.getOrDefault(name, dflt);
    }

    long number(String name, long dflt, long min, long max) {
        String raw = values.get(name);
        if (raw == null) {
            return dflt;
        }
        long v;
        try {
            v = Long.parseLong(raw.trim());
        } catch (NumberFormatException e) {
            throw new Bad("--" + name + " " + raw + ": expected a whole number from " + min + " to " + max);
        }
        if (v < min || v > max) {
            throw new Bad("--" + name + " " + raw + ": expected a whole number from " + min + " to " + max);
        }
        return v;
    }

    int integer(String name, int dflt, int min, int max) {
        return (int) number(name, dflt, min, max);
    }
}
