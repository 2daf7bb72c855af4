package org.soaptestbed.clones;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.management.ManagementFactory;
import java.util.Map;
import javax.management.ObjectName;
import org.apache.axis2.context.ConfigurationContextFactory;
import org.junit.jupiter.api.Test;
import org.soaptestbed.common.Env;

class SwitchableLifecycleTest {

    /** A clone whose services are not there (port 1 refuses at once): warm-ups log and go on. */
    private static SwitchableLifecycle clone(String mode) throws Exception {
        CloneConfig config = CloneConfig.fromEnv(new Env(Map.of("CLIENT_MODE", mode, "SOAP_URL", "http://127.0.0.1:1",
                "SOAP_TIMEOUT_MS", "200")));
        Stats stats = new Stats();
        ClientFactory factory = new ClientFactory(
                ConfigurationContextFactory.createBasicConfigurationContext(CloneMain.AXIS2_XML), config, stats);
        return new SwitchableLifecycle(config, factory, stats);
    }

    private static boolean registered(String mode) throws Exception {
        return ManagementFactory.getPlatformMBeanServer().isRegistered(
                new ObjectName("org.soaptestbed:type=ClientTime,backend=axis,mode=" + mode));
    }

    @Test
    void a_switch_replaces_the_lifecycle_and_its_timers_and_keeps_the_rest_of_the_configuration() throws Exception {
        SwitchableLifecycle l = clone("singleton");
        try {
            assertEquals(ClientMode.SINGLETON, l.mode());
            Map<String, Object> out = l.switchTo(ClientMode.POOL, 3);
            assertEquals(true, out.get("switched"));
            assertEquals(Map.of("mode", "singleton", "pool_size", 8), out.get("previous"));
            assertEquals(ClientMode.POOL, l.mode());
            assertEquals(3, l.config().poolSize());
            assertEquals(200, l.config().soapTimeoutMs());
            assertEquals(true, l.describe(Backend.AXIS).containsKey("pool_idle"), "a pool describes its pool");
            assertEquals(true, registered("pool"));
            assertEquals(false, registered("singleton"));
            assertEquals(false, l.switchTo(ClientMode.POOL, 3).get("switched"), "the same lifecycle again: nothing to do");
            assertEquals(true, l.switchTo(ClientMode.POOL, 4).get("switched"), "another pool size is another pool");
            assertEquals(true, l.switchTo(ClientMode.REQUEST, 4).get("switched"));
            assertEquals(false, l.switchTo(ClientMode.REQUEST, 9).get("switched"), "a pool size means nothing to it");
            assertEquals(ClientMode.REQUEST, l.mode());
        } finally {
            l.close();
        }
    }

    @Test
    void a_call_goes_through_the_lifecycle_of_the_moment() throws Exception {
        SwitchableLifecycle l = clone("pool");
        try {
            l.switchTo(ClientMode.REQUEST, 8);
            SoapCall ping = SoapCall.prepare(new InvokeRequest(Backend.AXIS, "ping", 0, 0L, 0L, 0L));
            // a client per request builds one from the WSDL: here refused, as BuildFailed (a pool would
            // have waited for one of its clients, none of which could be built)
            assertThrows(ClientFactory.BuildFailed.class,
                    () -> l.call(Backend.AXIS, ping, System.nanoTime() + 1_000_000_000L));
        } finally {
            l.close();
        }
    }

    @Test
    void bad_sizes_are_refused_naming_the_range() {
        assertEquals(5, LifecycleServlet.parseSize(" 5 "));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LifecycleServlet.parseSize("0"));
        assertEquals("pool_size must be a whole number from 1 to 1024, not '0'", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> LifecycleServlet.parseSize("lots"));
        assertInstanceOf(IllegalArgumentException.class, assertThrows(RuntimeException.class, () -> ClientMode.parse("bogus")));
    }
}
