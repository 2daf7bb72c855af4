package org.soaptestbed.front;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class InvokeParamsTest {

    @Test
    void absent_parameters_take_their_defaults() {
        assertEquals(new InvokeParams("axis", "ping", 0), InvokeParams.parse(null, null, null));
        assertEquals(new InvokeParams("axis", "ping", 0), InvokeParams.parse("", "", ""));
    }

    @Test
    void valid_parameters_pass() {
        assertEquals(new InvokeParams("gsoap", "sendInts", 1000), InvokeParams.parse("gsoap", "sendInts", "1000"));
    }

    @Test
    void wrong_parameters_are_a_400_naming_the_fix() {
        FrontException backend = assertThrows(FrontException.class, () -> InvokeParams.parse("soap", null, null));
        assertEquals(400, backend.status());
        assertTrue(backend.reason().contains("expected axis, gsoap or own"), backend.reason());

        FrontException op = assertThrows(FrontException.class, () -> InvokeParams.parse(null, "sendStrings", null));
        assertTrue(op.reason().contains("sendIntBuffer"), op.reason());

        for (String n : new String[] {"-1", "x", "1.5", String.valueOf(InvokeParams.MAX_ITEMS + 1L)}) {
            FrontException e = assertThrows(FrontException.class, () -> InvokeParams.parse(null, null, n), n);
            assertEquals(400, e.status());
        }
    }
}
