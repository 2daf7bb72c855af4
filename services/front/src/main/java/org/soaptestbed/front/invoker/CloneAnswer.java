package org.soaptestbed.front.invoker;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import java.net.URI;
import java.util.List;
import org.soaptestbed.common.Json;
import org.soaptestbed.front.FrontException;

/**
 * What the client tier's {@code /invoke} answered, reduced to what a front page shows: the
 * clone that served the call (host, pid) and the SOAP result in one short line.
 *
 * <p>The client tier answers (client-clones' InvokeServlet)
 * <pre>
 * 200 {"clone": {"host", "pid", "mode"}, "backend", "op", "n", "seed", "ok": true,
 *      "count", "checksum", "echo_equal", "work": {...}|null, "millis"}
 * 4xx/5xx {"ok": false, "tier": "soap-service"|"clone", "error": "...", ...}
 * </pre>
 * Reading is lenient about the layout: host and pid come from {@code "clone"}, else the top
 * level, else the first nested object that has them; the result is a {@code "result"}
 * member if there is one, else the non-null result fields
 * ({@code ok, count, checksum, echo_equal, work}), written as {@code name=value} words. An error names the tier the client tier
 * blames ({@code "tier"}; "clone" is the client tier itself), else the client tier.
 */
public record CloneAnswer(String host, String pid, String result) {

    /** Longest reason or result a page repeats from the client tier's answer. */
    static final int MAX_TEXT = 200;
    private static final List<String> RESULT_FIELDS = List.of("ok", "count", "checksum", "echo_equal", "work");
    private static final List<String> REASON_FIELDS = List.of("reason", "error", "message", "fault");
    /** The whole body must be one JSON document (trailing text makes it not JSON). */
    private static final ObjectReader READER = Json.MAPPER.reader()
            .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    /**
     * Interprets one answer; any status but 200 is a {@link FrontException}: 504 when the
     * client tier answered 504 (a timeout behind it), else 502.
     */
    static CloneAnswer of(int status, String body, URI uri) {
        JsonNode root = object(body);
        if (status != 200) {
            String tier = root == null ? null : text(root.get("tier"));
            String failing = tier == null || tier.equals("clone") ? FrontException.CLIENT_TIER : tier;
            String reason = "the client tier answered HTTP " + status + " to GET " + uri.getPath() + "?"
                    + uri.getRawQuery() + ": " + reason(root, body);
            if (status == 504) {
                throw FrontException.gatewayTimeout(failing, reason, null);
            }
            throw FrontException.badGateway(failing, reason, null);
        }
        if (root == null) {
            throw FrontException.badGateway(FrontException.CLIENT_TIER,
                    "answered 200 but not with a JSON object: " + clip(body), null);
        }
        return new CloneAnswer(find(root, "host"), find(root, "pid"), result(root));
    }

    private static JsonNode object(String body) {
        try {
            JsonNode e = READER.readTree(body == null ? "" : body);
            return e != null && e.isObject() ? e : null;
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    /** The member in "clone", else at the top level, else in the first nested object that has it; "?" if none. */
    private static String find(JsonNode root, String key) {
        JsonNode clone = root.get("clone");
        String value = clone != null && clone.isObject() ? text(clone.get(key)) : null;
        if (value == null) {
            value = text(root.get(key));
        }
        if (value != null) {
            return value;
        }
        for (JsonNode member : root) {
            if (member.isObject()) {
                value = text(member.get(key));
                if (value != null) {
                    return value;
                }
            }
        }
        return "?";
    }

    /** The result fields as {@code name=value} words, e.g. {@code ok=true count=5 checksum=123}. */
    private static String result(JsonNode root) {
        StringBuilder words = new StringBuilder();
        JsonNode result = root.get("result");
        if (result != null && result.isObject()) {
            for (var member : result.properties()) {
                words(words, member.getKey(), member.getValue());
            }
        } else if (result != null && !result.isNull()) {
            words(words, "result", result);
        } else {
            for (String field : RESULT_FIELDS) {
                words(words, field, root.get(field));
            }
        }
        return words.length() == 0 ? "ok" : clip(words.toString());
    }

    /** Primitives as name=value; objects flattened with dotted names; arrays by size. */
    private static void words(StringBuilder out, String name, JsonNode e) {
        if (e == null || e.isNull()) {
            return;
        }
        if (e.isObject()) {
            for (var member : e.properties()) {
                words(out, name + "." + member.getKey(), member.getValue());
            }
            return;
        }
        if (out.length() > 0) {
            out.append(' ');
        }
        out.append(name).append('=');
        out.append(e.isArray() ? "[" + e.size() + " items]" : e.asText());
    }

    /** The error's own words: a reason-like JSON field, else the body's text. */
    private static String reason(JsonNode root, String body) {
        if (root != null) {
            for (String field : REASON_FIELDS) {
                String value = text(root.get(field));
                if (value != null) {
                    return clip(value);
                }
            }
        }
        String text = body == null ? "" : body.replaceAll("<[^>]*>", " ").replaceAll("\\s+", " ").trim();
        return text.isEmpty() ? "(empty body)" : clip(text);
    }

    private static String text(JsonNode e) {
        return e != null && e.isValueNode() && !e.isNull() ? e.asText() : null;
    }

    private static String clip(String s) {
        return s.length() <= MAX_TEXT ? s : s.substring(0, MAX_TEXT) + "...";
    }
}
