package org.soaptestbed.contract.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** serve mode: one answer per command line, its exit status the command line's own. */
class ServeTest {

    @Test
    void aBadLineIsAUsageErrorWithExitTwo() {
        Map<String, Object> a = Call.answer(new String[] {"--endpoint", "http://127.0.0.1:1/axis", "--op", "nope"});
        assertEquals(2, a.get("exit"));
        assertTrue(((String) a.get("usage_error")).contains("is not a contract operation"), a.toString());
    }

    @Test
    void aRefusedConnectionIsAFaultWithExitThreeAndTheToolsKeys() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();   // closed again: nothing listens there
        }
        Map<String, Object> a = Call.answer(new String[] {
            "--endpoint", "http://127.0.0.1:" + port + "/axis", "--op", "ping", "--json"});
        assertEquals(3, a.get("exit"));
        assertEquals(0, a.get("ok"));
        assertEquals(1, a.get("errors"));
        assertTrue(((String) a.get("fault")).startsWith("transport: "), a.toString());
        assertEquals("axis", a.get("client"));
    }
}
