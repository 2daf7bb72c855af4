package org.soaptestbed.axis;

import java.io.InputStream;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import org.apache.axiom.om.OMElement;
import org.apache.axiom.om.OMXMLBuilderFactory;
import org.apache.axiom.om.util.StAXUtils;
import org.apache.axiom.soap.SOAPEnvelope;
import org.apache.axiom.soap.SOAPModelBuilder;
import org.apache.axis2.AxisFault;
import org.apache.axis2.Constants;
import org.apache.axis2.builder.Builder;
import org.apache.axis2.builder.BuilderUtil;
import org.apache.axis2.context.MessageContext;

/**
 * Axis2's message builder for {@code text/xml} (SOAP 1.1) requests: Axis2's own SOAPBuilder,
 * except that the StAX parser is made with {@link XmlLimits} instead of Axiom's plain SOAP
 * configuration. Registered by {@link AxisRuntime} for text/xml.
 */
final class LimitedSoapBuilder implements Builder {

    private final XmlLimits limits;

    LimitedSoapBuilder(XmlLimits limits) {
        this.limits = limits;
    }

    @Override
    public OMElement processDocument(InputStream in, String contentType, MessageContext mc)
            throws AxisFault {
        String charset = (String) mc.getProperty(Constants.Configuration.CHARACTER_SET_ENCODING);
        try {
            XMLStreamReader reader = charset == null
                    ? StAXUtils.createXMLStreamReader(limits, in)
                    : StAXUtils.createXMLStreamReader(limits, in, charset);
            SOAPModelBuilder builder = OMXMLBuilderFactory.createStAXSOAPModelBuilder(reader);
            mc.setProperty(Constants.BUILDER, builder);
            SOAPEnvelope envelope = builder.getSOAPEnvelope();
            BuilderUtil.validateSOAPVersion(BuilderUtil.getEnvelopeNamespace(contentType), envelope);
            return envelope;
        } catch (XMLStreamException e) {
            throw AxisFault.makeFault(e);
        }
    }
}
