package org.soaptestbed.clones;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ConnectException;
import java.net.SocketTimeoutException;
import javax.xml.namespace.QName;
import org.apache.axis2.AxisFault;
import org.apache.axis2.databinding.types.UnsignedInt;
import org.junit.jupiter.api.Test;
import org.soaptestbed.contract.Checksum;
import org.soaptestbed.contract.Payload;
import org.soaptestbed.contract.v1.Digest;
import org.soaptestbed.contract.v1.EchoIntsResponse;

/** Checking answers and classifying failures, without a network. */
class SoapCallTest {

    private static SoapCall prepare(String op, int n) {
        return SoapCall.prepare(new InvokeRequest(Backend.AXIS, op, n, 1, 0, 0));
    }

    private static Digest digest(int count, long checksum) {
        Digest d = new Digest();
        d.setCount(count);
        d.setChecksum(new UnsignedInt(checksum));
        return d;
    }

    @Test
    void a_right_digest_is_accepted_and_reported() throws Exception {
        long expected = Checksum.ofInts(Payload.ints(1000, 1));
        SoapCall.Result r = prepare("sendInts", 1000).check(digest(1000, expected));
        assertEquals(1000L, r.count());
        assertEquals(expected, r.checksum());
    }

    @Test
    void a_wrong_checksum_or_count_is_a_wrong_answer() {
        long expected = Checksum.ofDoubles(Payload.doubles(10, 1));
        SoapCall call = prepare("sendDoubles", 10);
        assertTrue(assertThrows(SoapCall.WrongAnswer.class, () -> call.check(digest(10, expected ^ 1)))
                .getMessage().contains("wrong checksum"));
        assertThrows(SoapCall.WrongAnswer.class, () -> call.check(digest(9, expected)));
    }

    @Test
    void an_echo_must_equal_the_request() throws Exception {
        SoapCall call = prepare("echoInts", 5);
        EchoIntsResponse same = new EchoIntsResponse();
        same.setItems(Payload.ints(5, 1));
        assertEquals(Boolean.TRUE, call.check(same).echoEqual());
        EchoIntsResponse shorter = new EchoIntsResponse();
        shorter.setItems(Payload.ints(4, 1));
        assertThrows(SoapCall.WrongAnswer.class, () -> call.check(shorter));
        assertEquals(0L, prepare("echoInts", 0).check(new EchoIntsResponse()).count());
    }

    @Test
    void failures_name_the_tier_and_map_to_the_documented_status() {
        assertEquals(504, Failure.of(AxisFault.makeFault(new SocketTimeoutException("Read timed out")), 30000).status());
        Failure refused = Failure.of(AxisFault.makeFault(new ConnectException("Connection refused")), 30000);
        assertEquals(502, refused.status());
        assertEquals("soap-service", refused.tier());
        assertTrue(refused.getMessage().startsWith("connection refused"));
        AxisFault fault = new AxisFault(new QName("http://schemas.xmlsoap.org/soap/envelope/", "Client"),
                "bad items", null);
        assertTrue(Failure.of(fault, 30000).getMessage().startsWith("SOAP fault Client: bad items"));
        assertEquals(502, Failure.of(new SoapCall.WrongAnswer("x"), 1).status());
        assertEquals("clone", Failure.busy("pool").tier());
        assertEquals(503, Failure.busy("pool").status());
    }

    @Test
    void an_own_services_answer_is_shown_up_to_its_first_300_characters() {
        String small = "<a xmlns=\"urn:x\"><b>1</b></a>";
        org.apache.axiom.om.OMElement e = org.apache.axiom.om.OMXMLBuilderFactory
                .createOMBuilder(new java.io.StringReader(small)).getDocumentElement();
        assertEquals(small, SoapCall.head(e));
        String big = "<a xmlns=\"urn:x\">" + "<b>12345</b>".repeat(100) + "</a>";
        e = org.apache.axiom.om.OMXMLBuilderFactory.createOMBuilder(new java.io.StringReader(big)).getDocumentElement();
        String shown = SoapCall.head(e);
        assertEquals(big.substring(0, SoapCall.ANSWER_CHARS) + "...", shown);
    }
}
