package org.soaptestbed.clones;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.soaptestbed.common.Env;

class CloneConfigTest {

    private static CloneConfig config(Map<String, String> vars) {
        return CloneConfig.fromEnv(new Env(vars));
    }

    @Test
    void defaults_are_the_documented_ones() {
        CloneConfig c = config(Map.of());
        assertEquals(ClientMode.SINGLETON, c.mode());
        assertEquals(8, c.poolSize());
        assertEquals(30_000, c.soapTimeoutMs());
        assertEquals(URI.create("http://127.0.0.1:8082/axis"), c.endpoint(Backend.AXIS));
        assertEquals(URI.create("http://127.0.0.1:8082/gsoap"), c.endpoint(Backend.GSOAP));
        assertTrue(c.demand().isZero());
    }

    @Test
    void the_endpoints_are_under_soap_url_unless_overridden_one_by_one() {
        CloneConfig c = config(Map.of("SOAP_URL", "http://lb:9000/", "SOAP_URL_GSOAP", "http://127.0.0.1:7001/gsoap"));
        assertEquals(URI.create("http://lb:9000/axis"), c.endpoint(Backend.AXIS));
        assertEquals(URI.create("http://127.0.0.1:7001/gsoap"), c.endpoint(Backend.GSOAP));
    }

    @Test
    void the_mode_is_read_in_any_case() {
        assertEquals(ClientMode.POOL, config(Map.of("CLIENT_MODE", "Pool")).mode());
        assertEquals(ClientMode.REQUEST, config(Map.of("CLIENT_MODE", " request ")).mode());
    }

    @Test
    void a_bad_client_mode_names_the_variable_and_the_choices() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> config(Map.of("CLIENT_MODE", "threadlocal")));
        assertEquals("CLIENT_MODE='threadlocal' is not valid: expected one of singleton, request, pool",
                e.getMessage());
    }

    @Test
    void bad_numbers_and_urls_are_refused_by_name() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> config(Map.of("CLIENT_POOL_SIZE", "0")))
                .getMessage().startsWith("CLIENT_POOL_SIZE="));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> config(Map.of("SOAP_TIMEOUT_MS", "soon")))
                .getMessage().startsWith("SOAP_TIMEOUT_MS="));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> config(Map.of("SOAP_URL", "ftp://x/")))
                .getMessage().startsWith("SOAP_URL="));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> config(Map.of("SOAP_URL_AXIS", "nohost")))
                .getMessage().startsWith("SOAP_URL_AXIS="));
    }

    @Test
    void the_start_up_line_shows_every_effective_value() {
        Map<String, Object> d = config(Map.of("CLIENT_MODE", "pool", "CLIENT_POOL_SIZE", "4")).describe();
        assertEquals("pool", d.get("CLIENT_MODE"));
        assertEquals(4, d.get("CLIENT_POOL_SIZE"));
        assertTrue(d.containsKey("SOAP_URL_AXIS") && d.containsKey("DEMAND_CLONE_CPU_US"), d.toString());
    }
}
