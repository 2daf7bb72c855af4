package org.soaptestbed.front.web;

/** Escapes text for an HTML page (values that came from another tier or the request). */
public final class Html {

    private Html() {
    }

    public static String escape(Object value) {
        String s = String.valueOf(value);
        StringBuilder out = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            String rep = switch (c) {
                case '<' -> "&lt;";
                case '>' -> "&gt;";
                case '&' -> "&amp;";
                case '"' -> "&quot;";
                case '\'' -> "&#39;";
                default -> null;
            };
            if (rep != null && out == null) {
                out = new StringBuilder(s.length() + 16).append(s, 0, i);
            }
            if (out != null) {
                if (rep != null) {
                    out.append(rep);
                } else {
                    out.append(c);
                }
            }
        }
        return out == null ? s : out.toString();
    }
}
