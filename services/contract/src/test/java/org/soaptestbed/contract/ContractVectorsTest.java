package org.soaptestbed.contract;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Checks Payload and Checksum against tests/contract/vectors.json, the vectors every
 * implementation of the contract is checked against (path given by the build as the
 * system property contract.vectors).
 */
class ContractVectorsTest {

    record Case(String kind, int n, long seed, long checksum, JsonNode items, String itemsHex) {
        @Override
        public String toString() {
            return kind + " n=" + n + " seed=" + Long.toUnsignedString(seed);
        }
    }

    static Stream<Case> cases() throws IOException {
        Path file = Path.of(System.getProperty("contract.vectors", "../../tests/contract/vectors.json"));
        // decimals kept as written, so a float item is parsed from its text, not from a double
        JsonNode root = new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                .readTree(Files.readString(file));
        long defaultSeed = root.get("seed").bigIntegerValue().longValue();
        List<Case> cases = new ArrayList<>();
        for (JsonNode c : root.get("cases")) {
            long seed = c.has("seed") ? c.get("seed").bigIntegerValue().longValue() : defaultSeed;
            cases.add(new Case(c.get("kind").asText(), c.get("n").asInt(), seed,
                    c.get("checksum").asLong(),
                    c.has("items") ? c.get("items") : null,
                    c.has("items_hex") ? c.get("items_hex").asText() : null));
        }
        assertTrue(cases.size() >= 16, "vectors.json holds " + cases.size() + " cases");
        return cases.stream();
    }

    /** The canonical bytes of the generated items, built independently with ByteBuffer. */
    private static byte[] canonical(Case c) {
        switch (c.kind()) {
            case "byte": {
                int[] v = Payload.bytes(c.n(), c.seed());
                byte[] b = new byte[v.length];
                for (int i = 0; i < v.length; i++) {
                    b[i] = (byte) v[i];
                }
                return b;
            }
            case "int": {
                ByteBuffer b = ByteBuffer.allocate(4 * c.n()).order(ByteOrder.LITTLE_ENDIAN);
                for (int v : Payload.ints(c.n(), c.seed())) {
                    b.putInt(v);
                }
                return b.array();
            }
            case "float": {
                ByteBuffer b = ByteBuffer.allocate(4 * c.n()).order(ByteOrder.LITTLE_ENDIAN);
                for (float v : Payload.floats(c.n(), c.seed())) {
                    b.putFloat(v);
                }
                return b.array();
            }
            case "double": {
                ByteBuffer b = ByteBuffer.allocate(8 * c.n()).order(ByteOrder.LITTLE_ENDIAN);
                for (double v : Payload.doubles(c.n(), c.seed())) {
                    b.putDouble(v);
                }
                return b.array();
            }
            default:
                throw new IllegalArgumentException(c.kind());
        }
    }

    private static long typedChecksum(Case c) {
        switch (c.kind()) {
            case "byte": return Checksum.ofUnsignedBytes(Payload.bytes(c.n(), c.seed()));
            case "int": return Checksum.ofInts(Payload.ints(c.n(), c.seed()));
            case "float": return Checksum.ofFloats(Payload.floats(c.n(), c.seed()));
            case "double": return Checksum.ofDoubles(Payload.doubles(c.n(), c.seed()));
            default: throw new IllegalArgumentException(c.kind());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void typedChecksumMatchesTheVector(Case c) {
        assertEquals(c.checksum(), typedChecksum(c));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void checksumOfCanonicalBytesMatchesTheVector(Case c) {
        assertEquals(c.checksum(), Checksum.ofBytes(canonical(c)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void generatedItemsMatchTheListedItemsAndBytes(Case c) {
        if (c.items() == null) {
            return;   // large cases list only the checksum
        }
        assertEquals(c.items().size(), c.n());
        for (int i = 0; i < c.n(); i++) {
            JsonNode want = c.items().get(i);
            switch (c.kind()) {
                case "byte" -> assertEquals(want.asInt(), Payload.bytes(c.n(), c.seed())[i]);
                case "int" -> assertEquals(want.asInt(), Payload.ints(c.n(), c.seed())[i]);
                case "float" -> assertEquals(Float.parseFloat(want.asText()), Payload.floats(c.n(), c.seed())[i]);
                case "double" -> assertEquals(Double.parseDouble(want.asText()), Payload.doubles(c.n(), c.seed())[i]);
                default -> throw new IllegalArgumentException(c.kind());
            }
        }
        assertArrayEquals(HexFormat.of().parseHex(c.itemsHex()), canonical(c));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void anIntBufferHasTheSameChecksumAsItsInts(Case c) {
        if (!c.kind().equals("int")) {
            return;
        }
        int[] ints = Payload.ints(c.n(), c.seed());
        assertEquals(Checksum.ofInts(ints), Checksum.ofBytes(Payload.intBuffer(ints)));
    }
}
