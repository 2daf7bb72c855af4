package org.soaptestbed.axis;

import com.ctc.wstx.api.WstxInputProperties;
import javax.xml.stream.XMLInputFactory;
import org.apache.axiom.om.util.StAXParserConfiguration;
import org.apache.axiom.util.stax.dialect.StAXDialect;

/**
 * How request XML is parsed: Axiom's SOAP configuration (a DOCTYPE is an error, so no
 * entity is ever declared or expanded) plus Woodstox's limits for nesting depth and
 * repeated elements. Axiom caches one parser factory per configuration instance, so the
 * service makes exactly one of these.
 */
final class XmlLimits implements StAXParserConfiguration {

    /** Elements a message may hold besides the array: Envelope, Header, Body, wrapper, ... */
    private static final long ELEMENTS_AROUND_THE_ARRAY = 1_000;

    private final int maxDepth;
    private final int maxOccurs;

    XmlLimits(int maxDepth, int maxOccurs) {
        this.maxDepth = maxDepth;
        this.maxOccurs = maxOccurs;
    }

    @Override
    public XMLInputFactory configure(XMLInputFactory factory, StAXDialect dialect) {
        factory.setProperty(WstxInputProperties.P_MAX_ELEMENT_DEPTH, maxDepth);
        factory.setProperty(WstxInputProperties.P_MAX_CHILDREN_PER_ELEMENT, maxOccurs);
        factory.setProperty(WstxInputProperties.P_MAX_ELEMENT_COUNT, maxOccurs + ELEMENTS_AROUND_THE_ARRAY);
        return StAXParserConfiguration.SOAP.configure(factory, dialect);
    }

    @Override
    public String toString() {
        return "SOAP+limits(depth=" + maxDepth + ", occurs=" + maxOccurs + ")";
    }
}
