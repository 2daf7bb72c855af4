package org.soaptestbed.clones;

import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import org.apache.axis2.AxisFault;

/**
 * Why an /invoke could not answer ok, as the HTTP status and JSON the caller gets:
 * {@code {"ok": false, "tier": ..., "error": ...}}.
 *
 * <pre>
 * 502 soap-service  SOAP fault, connection refused, bad WSDL, wrong count/checksum/echo
 * 504 soap-service  the service did not answer within SOAP_TIMEOUT_MS
 * 503 clone         no pooled client became free within SOAP_TIMEOUT_MS
 * 504 clone         the call waited SOAP_TIMEOUT_MS for the singleton client and was dropped
 * </pre>
 */
public final class Failure extends Exception {
    private static final long serialVersionUID = 1L;

    public static final String SERVICE_TIER = "soap-service";
    public static final String CLONE_TIER = "clone";

    private final int status;
    private final String tier;

    public Failure(int status, String tier, String message, Throwable cause) {
        super(message, cause);
        this.status = status;
        this.tier = tier;
    }

    public int status() {
        return status;
    }

    public String tier() {
        return tier;
    }

    /** The caller's share of the tier is used up (pool exhausted): 503. */
    public static Failure busy(String message) {
        return new Failure(503, CLONE_TIER, message, null);
    }

    /** The call's deadline passed while it waited inside the tier: 504. */
    public static Failure queued(String message) {
        return new Failure(504, CLONE_TIER, message, null);
    }

    /** Classifies what a SOAP call or a client build threw. */
    public static Failure of(Throwable t, int timeoutMs) {
        if (t instanceof Failure f) {
            return f;
        }
        if (t instanceof SoapCall.WrongAnswer) {
            return new Failure(502, SERVICE_TIER, t.getMessage(), t);
        }
        if (find(t, InterruptedIOException.class) != null) {
            return new Failure(504, SERVICE_TIER, "no answer within SOAP_TIMEOUT_MS=" + timeoutMs + ": " + rootText(t), t);
        }
        if (find(t, ConnectException.class) != null) {
            return new Failure(502, SERVICE_TIER, "connection refused: " + rootText(t), t);
        }
        if (find(t, UnknownHostException.class) != null) {
            return new Failure(502, SERVICE_TIER, "unknown host: " + rootText(t), t);
        }
        if (find(t, org.apache.axiom.soap.SOAPProcessingException.class) != null
                || find(t, javax.xml.stream.XMLStreamException.class) != null) {
            return new Failure(502, SERVICE_TIER, "the service's answer is not a SOAP message (an HTML or error page?): "
                    + rootText(t), t);
        }
        AxisFault fault = find(t, AxisFault.class);
        if (fault != null && fault.getFaultCode() != null) {
            return new Failure(502, SERVICE_TIER, "SOAP fault " + fault.getFaultCode().getLocalPart()
                    + ": " + fault.getReason(), t);
        }
        String text = t instanceof ClientFactory.BuildFailed ? t.getMessage() : rootText(t);
        return new Failure(502, SERVICE_TIER, text, t);
    }

    private static <T extends Throwable> T find(Throwable t, Class<T> type) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (type.isInstance(c)) {
                return type.cast(c);
            }
        }
        return null;
    }

    /** The innermost cause's class and message: what actually went wrong. */
    private static String rootText(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage();
        return root.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }
}
