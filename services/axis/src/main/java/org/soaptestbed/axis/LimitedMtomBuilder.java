package org.soaptestbed.axis;

import java.io.InputStream;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import javax.xml.transform.stax.StAXSource;
import org.apache.axiom.mime.ContentType;
import org.apache.axiom.mime.MultipartBody;
import org.apache.axiom.mime.Part;
import org.apache.axiom.om.OMAbstractFactory;
import org.apache.axiom.om.OMElement;
import org.apache.axiom.om.OMXMLBuilderFactory;
import org.apache.axiom.om.util.StAXUtils;
import org.apache.axiom.soap.SOAPEnvelope;
import org.apache.axiom.soap.SOAPModelBuilder;
import org.apache.axis2.AxisFault;
import org.apache.axis2.Constants;
import org.apache.axis2.builder.Builder;
import org.apache.axis2.context.MessageContext;

/**
 * Axis2's message builder for {@code multipart/related} requests: SOAP 1.1 with MTOM/XOP
 * attachments (sendIntBuffer's data as a binary part instead of base64 in the body). The
 * root part is parsed with the same {@link XmlLimits} as a text/xml request (no DOCTYPE,
 * nesting and element counts bounded); each {@code xop:Include} is resolved to its MIME
 * part, which the generated ADB code reads as the base64Binary's bytes. Registered by
 * {@link AxisRuntime}; the body as a whole is bounded by MAX_MESSAGE_BYTES like any other.
 */
final class LimitedMtomBuilder implements Builder {

    private final XmlLimits limits;

    LimitedMtomBuilder(XmlLimits limits) {
        this.limits = limits;
    }

    @Override
    public OMElement processDocument(InputStream in, String contentType, MessageContext mc)
            throws AxisFault {
        try {
            MultipartBody body = MultipartBody.builder().setInputStream(in).setContentType(contentType).build();
            Part root = body.getRootPart();
            if (root == null) {
                throw Faults.client("the multipart/related request has no root part");
            }
            ContentType type = root.getContentType();
            String charset = type == null ? null : type.getParameter("charset");
            XMLStreamReader reader = StAXUtils.createXMLStreamReader(limits, root.getInputStream(false),
                    charset == null ? "UTF-8" : charset);
            SOAPModelBuilder builder = OMXMLBuilderFactory.createSOAPModelBuilder(
                    OMAbstractFactory.getMetaFactory(), new StAXSource(reader), cid -> {
                        Part p = body.getPart(cid);
                        return p == null ? null : p.getBlob();
                    });
            mc.setProperty(Constants.BUILDER, builder);
            mc.setDoingMTOM(true);
            SOAPEnvelope envelope = builder.getSOAPEnvelope();
            if (!envelope.getNamespaceURI().equals("http://schemas.xmlsoap.org/soap/envelope/")) {
                throw Faults.client("the MTOM root part is not a SOAP 1.1 envelope");
            }
            return envelope;
        } catch (XMLStreamException | RuntimeException e) {
            if (e instanceof AxisFault) {
                throw (AxisFault) e;
            }
            throw AxisFault.makeFault(e);
        }
    }
}
