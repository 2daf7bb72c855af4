package org.soaptestbed.axis;

import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The contract WSDL as served at {@code GET /axis?wsdl}: the file itself, byte for byte,
 * except that the soap:address location names the endpoint the client used —
 * {@code http://<Host header><request path>} — so a client behind HAProxy gets the
 * proxy's address.
 */
final class ContractWsdl {

    private static final Pattern ADDRESS =
            Pattern.compile("(<(?:\\w+:)?address\\b[^>]*?\\blocation=\")([^\"]*)(\")");

    private final String head;
    private final String tail;

    ContractWsdl(byte[] wsdl) {
        String text = new String(wsdl, StandardCharsets.UTF_8);
        Matcher m = ADDRESS.matcher(text);
        if (!m.find()) {
            throw new IllegalStateException("the contract WSDL has no soap:address location");
        }
        head = text.substring(0, m.end(1));
        tail = text.substring(m.start(3));
    }

    /** The WSDL for a client that reached {@code path} through {@code host} (host[:port]). */
    byte[] forEndpoint(String host, String path) {
        return (head + escape("http://" + host + path) + tail).getBytes(StandardCharsets.UTF_8);
    }

    /** The Host header is client input: it must not break out of the attribute. */
    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
