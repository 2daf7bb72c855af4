package org.soaptestbed.common;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AdminGateTest {

    @Test
    void noTokenMeansNoAdminRequestIsEntitled() {
        assertFalse(AdminGate.fromEnv(new Env(Map.of())).configured());
        assertTrue(AdminGate.fromEnv(new Env(Map.of(AdminGate.ENV, "abcdefghijklmnop-_.~0123"))).configured());
    }

    @ParameterizedTest
    @ValueSource(strings = {"short", "with space inside it", "quote'quote'quote'quote", "sixteen+chars+here"})
    void aMalformedTokenIsRefusedWithoutPrintingIt(String token) {
        Env.BadValue e = assertThrows(Env.BadValue.class,
                () -> AdminGate.fromEnv(new Env(Map.of(AdminGate.ENV, token))));
        assertTrue(e.getMessage().startsWith(AdminGate.ENV + "="), e.getMessage());
        assertFalse(e.getMessage().contains(token), e.getMessage());
    }
}
