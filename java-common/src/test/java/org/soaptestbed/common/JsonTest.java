package org.soaptestbed.common;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {

    @Test
    void writes_nested_maps_in_order_with_escapes() {
        Map<String, Object> inner = new LinkedHashMap<>();
        inner.put("pid", 42L);
        inner.put("none", null);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ok", true);
        m.put("error", "a \"quoted\"\nline\u0001");
        m.put("millis", 1.5);
        m.put("nan", Double.NaN);
        m.put("list", Arrays.asList(1, "x"));
        m.put("inner", inner);
        assertEquals("{\"ok\":true,\"error\":\"a \\\"quoted\\\"\\nline\\u0001\",\"millis\":1.5,\"nan\":null,"
                + "\"list\":[1,\"x\"],\"inner\":{\"pid\":42,\"none\":null}}", Json.write(m));
    }
}
