package org.soaptestbed.servers;

import java.util.Map;

/** One-line JSON of a flat or nested map of numbers, strings, booleans and nulls. */
final class Json {

    private Json() {
    }

    static String of(Map<String, ?> m) {
        StringBuilder b = new StringBuilder("{");
        for (Map.Entry<String, ?> e : m.entrySet()) {
            if (b.length() > 1) {
                b.append(", ");
            }
            b.append(quote(e.getKey())).append(": ").append(value(e.getValue()));
        }
        return b.append('}').toString();
    }

    @SuppressWarnings("unchecked")
    private static String value(Object v) {
        if (v == null) {
            return "null";
        }
        if (v instanceof Map<?, ?> m) {
            return of((Map<String, ?>) m);
        }
        if (v instanceof Double d) {
            return d.isNaN() || d.isInfinite() ? "null" : String.valueOf(d);
        }
        if (v instanceof Number || v instanceof Boolean) {
            return String.valueOf(v);
        }
        return quote(String.valueOf(v));
    }

    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
