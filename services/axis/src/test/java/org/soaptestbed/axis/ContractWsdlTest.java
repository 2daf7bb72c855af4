package org.soaptestbed.axis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.soaptestbed.contract.Contract;

class ContractWsdlTest {

    private static final ContractWsdl WSDL = new ContractWsdl(Contract.wsdl());

    @Test
    void onlyTheAddressChanges() {
        String original = new String(Contract.wsdl(), StandardCharsets.UTF_8);
        String served = new String(WSDL.forEndpoint("127.0.0.1:8082", "/axis"), StandardCharsets.UTF_8);
        assertTrue(served.contains("location=\"http://127.0.0.1:8082/axis\""), served);
        assertEquals(original.replaceAll("location=\"[^\"]*\"", "L"), served.replaceAll("location=\"[^\"]*\"", "L"));
    }

    @Test
    void aHostileHostHeaderCannotLeaveTheAttribute() {
        String served = new String(WSDL.forEndpoint("x\"><evil/>", "/axis"), StandardCharsets.UTF_8);
        assertTrue(served.contains("location=\"http://x&quot;&gt;&lt;evil/&gt;/axis\""), served);
    }

    @Test
    void aWsdlWithoutAnAddressIsRefusedAtStartUp() {
        assertThrows(IllegalStateException.class,
                () -> new ContractWsdl("<definitions/>".getBytes(StandardCharsets.UTF_8)));
    }
}
