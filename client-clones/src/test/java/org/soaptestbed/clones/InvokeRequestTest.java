package org.soaptestbed.clones;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class InvokeRequestTest {

    private static InvokeRequest parse(Map<String, String> params) throws InvokeRequest.BadRequest {
        return InvokeRequest.parse(params::get, params.keySet(), 1000);
    }

    private static String refusal(Map<String, String> params) {
        return assertThrows(InvokeRequest.BadRequest.class, () -> parse(params)).getMessage();
    }

    @Test
    void no_parameters_means_a_ping_of_axis_with_seed_1() throws Exception {
        assertEquals(new InvokeRequest(Backend.AXIS, "ping", 0, 1, 0, 0), parse(Map.of()));
    }

    @Test
    void every_parameter_is_read() throws Exception {
        InvokeRequest r = parse(Map.of("backend", "gsoap", "op", "work", "n", "5", "seed", "42",
                "cpuMicros", "10", "waitMicros", "300000"));
        assertEquals(new InvokeRequest(Backend.GSOAP, "work", 5, 42, 10, 300000), r);
    }

    @Test
    void the_seed_is_an_unsigned_64_bit_integer() throws Exception {
        assertEquals(-1L, parse(Map.of("seed", "18446744073709551615")).seed());
        assertTrue(refusal(Map.of("seed", "-1")).startsWith("seed="));
        assertTrue(refusal(Map.of("seed", "18446744073709551616")).startsWith("seed="));
    }

    @Test
    void an_unknown_backend_or_operation_is_refused_with_the_choices() {
        assertTrue(refusal(Map.of("backend", "cxf")).contains("axis, gsoap or own"));
        String op = refusal(Map.of("op", "sendStrings"));
        assertTrue(op.contains("sendIntBuffer") && op.contains("echoInts"), op);
    }

    @Test
    void n_must_be_a_number_within_the_limit() {
        assertTrue(refusal(Map.of("n", "-1")).contains("from 0 to 1000"));
        assertTrue(refusal(Map.of("n", "1001")).contains("from 0 to 1000"));
        assertTrue(refusal(Map.of("n", "ten")).startsWith("n='ten'"));
    }

    @Test
    void work_demands_are_bounded_and_only_for_work() {
        assertTrue(refusal(Map.of("op", "work", "waitMicros", "60000001")).startsWith("waitMicros="));
        assertTrue(refusal(Map.of("op", "ping", "cpuMicros", "5")).contains("op=work only"));
    }

    @Test
    void an_unknown_parameter_is_refused_so_a_typo_is_not_ignored() {
        assertTrue(refusal(Map.of("op", "work", "waitMicro", "5")).contains("'waitMicro'"));
    }
}
