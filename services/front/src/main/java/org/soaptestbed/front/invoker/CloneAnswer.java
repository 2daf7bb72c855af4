package org.soaptestbed.front.invoker;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import java.net.URI;
import java.util.List;
import org.soaptestbed.front.FrontException;

/**
 * What the client tier's {@code /invoke} answered, reduced to what a front page shows: the
 * clone that served the call (host, pid) and the SOAP result in one short line.
 *
 * <p>Reading is lenient about the JSON's layout: host and pid are taken from the top level
 * or from the first nested object that has them (e.g. {@code "clone": {"host", "pid"}});
 * the result is the {@code "result"} member if there is one, otherwise the known result
 * fields found at the top level ({@code ok, count, checksum, echo_equal, work}).
 */
public record CloneAnswer(String host, String pid, String result) {

    /** Longest reason or result a page repeats from the client tier's answer. */
    static final int MAX_TEXT = 200;
    private static final List<String> RESULT_FIELDS = List.of("ok", "count", "checksum", "echo_equal", "work");
    private static final List<String> REASON_FIELDS = List.of("reason", "error", "message", "fault");

    /** Interprets one answer; any status but 200 is a {@link FrontException} naming the client tier. */
    static CloneAnswer of(int status, String body, URI uri) {
        if (status != 200) {
            String reason = "answered HTTP " + status + " to GET " + uri.getPath() + "?" + uri.getRawQuery()
                    + ": " + reason(body);
            if (status == 504) {
                throw FrontException.gatewayTimeout(FrontException.CLIENT_TIER, reason, null);
            }
            throw FrontException.badGateway(FrontException.CLIENT_TIER, reason, null);
        }
        JsonObject root = object(body);
        if (root == null) {
            throw FrontException.badGateway(FrontException.CLIENT_TIER,
                    "answered 200 but not with a JSON object: " + clip(body), null);
        }
        return new CloneAnswer(find(root, "host"), find(root, "pid"), result(root));
    }

    private static JsonObject object(String body) {
        try {
            JsonElement e = JsonParser.parseString(body == null ? "" : body);
            return e.isJsonObject() ? e.getAsJsonObject() : null;
        } catch (JsonParseException e) {
            return null;
        }
    }

    /** The member at the top level, else in the first nested object that has it; "?" if none. */
    private static String find(JsonObject root, String key) {
        String value = text(root.get(key));
        if (value != null) {
            return value;
        }
        for (var member : root.entrySet()) {
            if (member.getValue().isJsonObject()) {
                value = text(member.getValue().getAsJsonObject().get(key));
                if (value != null) {
                    return value;
                }
            }
        }
        return "?";
    }

    private static String result(JsonObject root) {
        JsonElement result = root.get("result");
        if (result != null && !result.isJsonNull()) {
            return clip(result.isJsonPrimitive() ? result.getAsString() : result.toString());
        }
        JsonObject picked = new JsonObject();
        for (String field : RESULT_FIELDS) {
            JsonElement e = root.get(field);
            if (e != null && !e.isJsonNull()) {
                picked.add(field, e);
            }
        }
        return picked.size() == 0 ? "ok" : clip(picked.toString());
    }

    /** The error's own words: a reason-like JSON field, else the body's text. */
    private static String reason(String body) {
        JsonObject root = object(body);
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

    private static String text(JsonElement e) {
        return e != null && e.isJsonPrimitive() ? e.getAsString() : null;
    }

    private static String clip(String s) {
        return s.length() <= MAX_TEXT ? s : s.substring(0, MAX_TEXT) + "...";
    }
}
