package org.soaptestbed.axis;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import org.apache.axiom.om.util.StAXUtils;
import org.junit.jupiter.api.Test;

/** The parser the service reads requests with, on its own. */
class XmlLimitsTest {

    private static final XmlLimits LIMITS = new XmlLimits(8, 10);

    private static void parseAll(String xml) throws XMLStreamException {
        XMLStreamReader r = StAXUtils.createXMLStreamReader(LIMITS,
                new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
        while (r.hasNext()) {
            r.next();
        }
    }

    @Test
    void nestingUpToTheLimitIsAccepted() throws XMLStreamException {
        parseAll("<a>".repeat(8) + "</a>".repeat(8));
    }

    @Test
    void nestingOverTheLimitIsAnError() {
        XMLStreamException e = assertThrows(XMLStreamException.class,
                () -> parseAll("<a>".repeat(9) + "</a>".repeat(9)));
        assertTrue(e.getMessage().contains("Depth"), e.getMessage());
    }

    @Test
    void moreRepeatedElementsThanTheLimitIsAnError() throws XMLStreamException {
        parseAll("<r>" + "<i/>".repeat(10) + "</r>");
        assertThrows(XMLStreamException.class, () -> parseAll("<r>" + "<i/>".repeat(11) + "</r>"));
    }

    @Test
    void aDoctypeIsAnErrorSoNoEntityIsEverExpanded() {
        XMLStreamException e = assertThrows(XMLStreamException.class,
                () -> parseAll("<!DOCTYPE r [<!ENTITY x \"boom\">]><r>&x;</r>"));
        assertTrue(e.getMessage().contains("DOCTYPE"), e.getMessage());
    }
}
