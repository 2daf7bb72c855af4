package org.soaptestbed.common;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ServedTest {
    @Test
    void requestsAreCountedByStatusClassAndInFlightUntilTheyFinish() {
        Served s = new Served();
        s.started();
        s.started();
        s.started();
        s.finished(200);
        s.finished(404);
        assertEquals("{\"started\":3,\"ok\":1,\"errors\":1,\"client_errors\":1,\"server_errors\":0,\"in_flight\":1}", s.json());
        s.finished(503);
        assertEquals("{\"started\":3,\"ok\":1,\"errors\":2,\"client_errors\":1,\"server_errors\":1,\"in_flight\":0}", s.json());
    }
}
