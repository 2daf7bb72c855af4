package org.soaptestbed.axis;

import java.io.IOException;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.xml.namespace.QName;
import javax.xml.stream.XMLStreamException;
import org.apache.axiom.om.OMElement;
import org.apache.axiom.om.OMException;
import org.apache.axiom.soap.SOAP11Constants;
import org.apache.axis2.AxisFault;
import org.apache.axis2.context.MessageContext;
import org.soaptestbed.common.BodyLimitFilter;

/**
 * Who is to blame for a failed request. Input errors — malformed or truncated XML, a
 * DOCTYPE, XML over the depth or element limits, not a SOAP 1.1 envelope, an unknown
 * operation, a body that does not parse as the operation's request — are the client's:
 * they are answered with a SOAP 1.1 {@code Client} fault whose reason says what was
 * wrong. Anything else is a {@code Server} fault, and is logged.
 */
final class Faults {

    private static final Logger LOG = Logger.getLogger(Faults.class.getName());
    static final QName CLIENT = new QName(SOAP11Constants.SOAP_ENVELOPE_NAMESPACE_URI, "Client", "soapenv");
    private static final int MAX_CAUSES = 20;

    private Faults() {
    }

    static AxisFault client(String reason) {
        return new AxisFault(oneLine(reason), CLIENT);
    }

    static boolean isClient(AxisFault fault) {
        return CLIENT.equals(fault.getFaultCode());
    }

    /** The fault to answer {@code failure} with (called once per failed request). */
    static AxisFault forResponse(MessageContext mc, AxisFault failure) {
        if (isClient(failure)) {
            return failure;
        }
        String problem = inputProblem(failure);
        if (problem == null && mc != null && mc.getAxisOperation() == null) {
            problem = "no such operation: " + requested(mc);
        }
        if (problem != null) {
            return client(problem);
        }
        LOG.log(Level.WARNING, "Server fault: " + failure.getMessage(), failure);
        return failure;
    }

    /**
     * What was wrong with the input, if the cause chain shows the input was at fault:
     * the service refused it, it was too large, it is not well-formed XML (or over the
     * parser's limits), it is not a SOAP envelope, or it could not be read.
     */
    static String inputProblem(Throwable failure) {
        Throwable t = failure;
        for (int i = 0; t != null && i < MAX_CAUSES; i++, t = t.getCause()) {
            if (t instanceof ClientFault || t instanceof BodyLimitFilter.BodyTooLargeException) {
                return t.getMessage();
            }
            if (t instanceof XMLStreamException) {
                return "malformed or over-limit XML: " + innermost(t, XMLStreamException.class).getMessage();
            }
            if (t instanceof OMException && t.getCause() == null) {
                return "not a SOAP 1.1 envelope: " + t.getMessage();   // Axiom's own complaint
            }
            if (t instanceof IOException && !(t instanceof AxisFault)) {
                return "the request body could not be read: " + t;    // the service reads nothing else
            }
        }
        return null;
    }

    /** The innermost cause of the given type, starting from {@code t} (which is one). */
    private static Throwable innermost(Throwable t, Class<? extends Throwable> type) {
        Throwable found = t;
        for (int i = 0; t != null && i < MAX_CAUSES; i++, t = t.getCause()) {
            if (type.isInstance(t)) {
                found = t;
            }
        }
        return found;
    }

    /** The innermost message of a cause chain. */
    static String rootMessage(Throwable failure) {
        Throwable t = failure;
        for (int i = 0; t.getCause() != null && t.getCause() != t && i < MAX_CAUSES; i++) {
            t = t.getCause();
        }
        return t.getMessage() != null ? t.getMessage() : t.toString();
    }

    private static String requested(MessageContext mc) {
        String action = mc.getSoapAction();
        String element = "none";
        try {
            OMElement first = mc.getEnvelope() == null ? null : mc.getEnvelope().getBody().getFirstElement();
            if (first != null) {
                element = "{" + first.getNamespaceURI() + "}" + first.getLocalName();
            }
        } catch (RuntimeException e) {
            element = "unreadable";
        }
        return "SOAPAction '" + (action == null ? "" : action) + "', body element " + element;
    }

    static String oneLine(String s) {
        if (s == null) {
            return "";
        }
        String line = s.replaceAll("\\s+", " ").trim();
        return line.length() > 400 ? line.substring(0, 400) + "..." : line;
    }
}
