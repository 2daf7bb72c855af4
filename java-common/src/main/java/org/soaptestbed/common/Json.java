package org.soaptestbed.common;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import java.io.IOException;

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
