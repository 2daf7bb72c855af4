package org.soaptestbed.common;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON of the tiers' answers and the studies' lines: one Jackson mapper. Maps keep their
 * iteration order, nulls are written, and a NaN or infinite double is written as {@code null}
 * (JSON has no such number; the Python side reads null as "no value").
 */
public final class Json {

    public static final ObjectMapper MAPPER = JsonMapper.builder()
            .addModule(new SimpleModule("non-finite-as-null")
                    .addSerializer(Double.class, new NonFiniteAsNull())
                    .addSerializer(double.class, new NonFiniteAsNull()))
            .build();

    private Json() {
    }

    /** One compact JSON document of maps, lists, strings, numbers, booleans and nulls. */
    public static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not writable as JSON: " + e.getOriginalMessage(), e);
        }
    }

    /**
     * Loads the mapper and the serializers of the answers' types ahead of the first answer:
     * about 0.7 s of class loading on a busy 2-core host (measured), which the first request
     * would otherwise wait for. TomcatServer runs it on a thread of its own while the tier starts.
     */
    public static void warmUp() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("n", 1L);
        m.put("x", 1.5);
        m.put("none", null);
        m.put("list", List.of(true, "s"));
        m.put("map", Map.of("k", 1));
        write(m);
    }

    private static final class NonFiniteAsNull extends StdSerializer<Double> {

        NonFiniteAsNull() {
            super(Double.class);
        }

        @Override
        public void serialize(Double v, JsonGenerator g, SerializerProvider p) throws IOException {
            if (Double.isFinite(v)) {
                g.writeNumber(v);
            } else {
                g.writeNull();
            }
        }
    }
}
