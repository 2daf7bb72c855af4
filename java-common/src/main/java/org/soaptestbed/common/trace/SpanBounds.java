package org.soaptestbed.common.trace;

/**
 * How big a span may be, in bytes of its JSON (UTF-8, with JSON's escapes: what Zipkin receives
 * and keeps): a request's raw
 * method and URI reach span names and tags, and Tomcat accepts 8 KB of them, so every producer
 * clips. A clipped text ends with {@link #MARK}; a tag that no longer fits in the span's total
 * is left out, and the span carries the tag {@code truncated} saying so.
 */
final class SpanBounds {

    static final int NAME_MAX = 128;
    static final int KEY_MAX = 64;
    static final int VALUE_MAX = 256;
    /** Name and tags together, plus {@link #FIXED}: ids, times, kind, the service's name. */
    static final int SPAN_MAX = 2048;
    /** What a span's JSON takes besides its name and tags (ids, times, field names), at most. */
    static final int FIXED = 320;
    static final String MARK = "...[truncated]";
    static final String TRUNCATED_TAG = "truncated";

    private SpanBounds() {
    }

    /** s itself when it fits in max bytes, else its longest prefix that fits with the mark. */
    static String clip(String s, int max) {
        if (s.length() * 6 <= max || bytes(s) <= max) {
            return s;
        }
        int room = max - MARK.length();
        int used = 0;
        int i = 0;
        while (i < s.length()) {
            int cp = s.codePointAt(i);
            int n = bytes(cp);
            if (used + n > room) {
                break;
            }
            used += n;
            i += Character.charCount(cp);
        }
        return s.substring(0, i) + MARK;
    }

    /** Bytes of s inside a JSON string: UTF-8, a quote or backslash 2, another control character 6. */
    static int bytes(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); i += Character.charCount(s.codePointAt(i))) {
            n += bytes(s.codePointAt(i));
        }
        return n;
    }

    private static int bytes(int cp) {
        if (cp == '"' || cp == '\\') {
            return 2;
        }
        if (cp < 0x20) {
            return 6;
        }
        return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    }
}
