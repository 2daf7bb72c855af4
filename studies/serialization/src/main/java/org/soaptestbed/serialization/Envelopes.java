package org.soaptestbed.serialization;

import java.io.InputStream;
import java.io.OutputStream;
import org.apache.axiom.om.OMAbstractFactory;
import org.apache.axiom.om.OMElement;
import org.apache.axiom.om.OMOutputFormat;
import org.apache.axiom.om.OMXMLBuilderFactory;
import org.apache.axiom.soap.SOAPEnvelope;
import org.apache.axiom.soap.SOAPFactory;
import org.apache.axiom.soap.SOAPMessage;
import org.apache.axiom.soap.SOAPModelBuilder;

/**
 * A message's SOAP 1.1 envelope written and read the way Axis2 does it. Writing: the
 * generated stub's toEnvelope (the bean's element, an ADB data source, in an empty
 * envelope) serialized by Axiom as the HTTP transport's message formatter does (UTF-8,
 * consumed while written). Reading: the envelope built by Axiom from the bytes and the
 * body's element handed to the generated Factory.parse, as the generated message
 * receiver does.
 */
final class Envelopes {

    private static final SOAPFactory SOAP11 = OMAbstractFactory.getSOAP11Factory();

    private Envelopes() {
    }

    static OMOutputFormat format() {
        OMOutputFormat f = new OMOutputFormat();
        f.setCharSetEncoding("UTF-8");
        f.setSOAP11(true);
        return f;
    }

    static void write(Message m, OutputStream out) throws Exception {
        SOAPEnvelope env = SOAP11.getDefaultEnvelope();
        env.getBody().addChild(m.bean().getOMElement(m.qname(), SOAP11));
        SOAPMessage message = SOAP11.createSOAPMessage();
        message.setSOAPEnvelope(env);
        message.serializeAndConsume(out, format());  // the document: with its XML declaration
    }

    /** {count, checksum} of the request read back from in (not closed). */
    static long[] read(Message m, InputStream in) throws Exception {
        SOAPModelBuilder builder = OMXMLBuilderFactory.createSOAPModelBuilder(in, "UTF-8");
        try {
            OMElement request = builder.getSOAPEnvelope().getBody().getFirstElement();
            return m.parse(request.getXMLStreamReaderWithoutCaching());
        } finally {
            builder.close();
        }
    }
}
