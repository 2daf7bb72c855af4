package org.soaptestbed.contract.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CallOptionsTest {

    private static CallOptions parse(String... args) throws Exception {
        return CallOptions.parse(args);
    }

    @Test
    void defaultsAreOneCallOfZeroItemsWithSeedOne() throws Exception {
        CallOptions o = parse("--endpoint", "http://127.0.0.1:8082/axis", "--op", "ping");
        assertEquals(0, o.n());
        assertEquals(1, o.seed());
        assertEquals(1, o.calls());
        assertEquals(1, o.connections());
        assertEquals(false, o.json());
    }

    @Test
    void valuesMayFollowAnEqualsSign() throws Exception {
        CallOptions o = parse("--endpoint=http://h:1/axis", "--op=sendInts", "--n=5", "--calls=7", "--json");
        assertEquals(5, o.n());
        assertEquals(7, o.calls());
        assertTrue(o.json());
    }

    @Test
    void aSeedIsAnUnsigned64BitInteger() throws Exception {
        CallOptions o = parse("--endpoint", "http://h/axis", "--op", "ping", "--seed", "18446744073709551615");
        assertEquals(-1L, o.seed());
        assertEquals("18446744073709551615", o.seedText());
    }

    @Test
    void usageErrorsNameTheFix() {
        CallOptions.UsageError missing = assertThrows(CallOptions.UsageError.class,
                () -> parse("--op", "ping"));
        assertTrue(missing.getMessage().contains("--endpoint is required"), missing.getMessage());
        CallOptions.UsageError op = assertThrows(CallOptions.UsageError.class,
                () -> parse("--endpoint", "http://h/axis", "--op", "pong"));
        assertTrue(op.getMessage().contains("sendInts"), op.getMessage());
        CallOptions.UsageError n = assertThrows(CallOptions.UsageError.class,
                () -> parse("--endpoint", "http://h/axis", "--op", "ping", "--n", "-1"));
        assertTrue(n.getMessage().contains("from 0 to"), n.getMessage());
        assertThrows(CallOptions.UsageError.class,
                () -> parse("--endpoint", "ftp://h/axis", "--op", "ping"));
        assertThrows(CallOptions.UsageError.class,
                () -> parse("--endpoint", "http://h/axis", "--op", "ping", "--calls", "0"));
        assertThrows(CallOptions.UsageError.class,
                () -> parse("--endpoint", "http://h/axis", "--op", "ping", "--bogus"));
    }

    @Test
    void aBadCommandLineExitsWith2AndHelpWith0() {
        assertEquals(2, Call.run(new String[] {"--op", "ping"}));
        assertEquals(0, Call.run(new String[] {"--help"}));
    }
}
