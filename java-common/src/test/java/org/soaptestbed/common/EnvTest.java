package org.soaptestbed.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class EnvTest {

    @Test
    void unsetOrBlankVariablesGiveTheDefault() {
        Env env = new Env(Map.of("BLANK", "  "));
        assertEquals(7, env.integer("UNSET", 7, 0, 10));
        assertEquals(7, env.integer("BLANK", 7, 0, 10));
        assertEquals("d", env.string("UNSET", "d"));
        assertFalse(env.flag("UNSET", false));
    }

    @Test
    void valuesAreTrimmedAndParsed() {
        Env env = new Env(Map.of("N", " 42 ", "F", "1", "G", "off"));
        assertEquals(42, env.integer("N", 0, 0, 100));
        assertTrue(env.flag("F", false));
        assertFalse(env.flag("G", true));
    }

    @Test
    void aMalformedValueNamesTheVariableAndTheExpectedForm() {
        Env env = new Env(Map.of("TOMCAT_MAX_THREADS", "lots"));
        Env.BadValue e = assertThrows(Env.BadValue.class,
                () -> env.integer("TOMCAT_MAX_THREADS", 200, 1, 100_000));
        assertTrue(e.getMessage().contains("TOMCAT_MAX_THREADS='lots'"), e.getMessage());
        assertTrue(e.getMessage().contains("an integer from 1 to 100000"), e.getMessage());
    }

    @Test
    void anOutOfRangeValueIsRejectedNotClamped() {
        Env env = new Env(Map.of("PORT", "70000"));
        assertThrows(Env.BadValue.class, () -> env.port("PORT", 8080));
    }

    @Test
    void aFlagAcceptsOnlyKnownSpellings() {
        Env env = new Env(Map.of("DEMAND_SERVICE_LOCKED", "maybe"));
        Env.BadValue e = assertThrows(Env.BadValue.class, () -> env.flag("DEMAND_SERVICE_LOCKED", false));
        assertTrue(e.getMessage().contains("1 or 0"), e.getMessage());
    }

    @Test
    void tomcatSettingsHaveTheDocumentedDefaults() {
        TomcatSettings s = TomcatSettings.fromEnv(new Env(Map.of()), 8080);
        assertEquals("127.0.0.1", s.bind());
        assertEquals(8080, s.port());
        assertEquals(200, s.maxThreads());
        assertEquals(10, s.minSpareThreads());
        assertEquals(100, s.acceptCount());
        assertEquals(8192, s.maxConnections());
        assertEquals(20000, s.connectionTimeoutMs());
        assertEquals(20000, s.keepAliveTimeoutMs());
        assertEquals(10000, s.maxKeepAliveRequests());
        assertEquals(67108864L, s.maxMessageBytes());
    }

    @Test
    void minSpareThreadsAboveMaxThreadsIsAConfigurationError() {
        Env env = new Env(Map.of("TOMCAT_MAX_THREADS", "4", "TOMCAT_MIN_SPARE_THREADS", "10"));
        assertThrows(Env.BadValue.class, () -> TomcatSettings.fromEnv(env, 8080));
    }
}
