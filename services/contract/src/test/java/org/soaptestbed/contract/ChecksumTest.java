package org.soaptestbed.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ChecksumTest {

    @Test
    void noItemsGiveTheOffsetBasis() {
        assertEquals(2166136261L, Checksum.ofInts(new int[0]));
        assertEquals(2166136261L, Checksum.ofBytes(new byte[0]));
        assertEquals(Checksum.EMPTY, Checksum.ofDoubles(new double[0]));
    }

    @Test
    void aSliceOfABufferIsHashedAlone() {
        byte[] data = {9, 1, 2, 3, 9};
        assertEquals(Checksum.ofBytes(new byte[] {1, 2, 3}), Checksum.ofBytes(data, 1, 3));
    }

    @Test
    void floatsAreHashedByBitPatternSoNegativeZeroDiffersFromZero() {
        assertEquals(Checksum.ofInts(new int[] {Float.floatToRawIntBits(-0.0f)}),
                Checksum.ofFloats(new float[] {-0.0f}));
        assertEquals(false, Checksum.ofFloats(new float[] {0.0f}) == Checksum.ofFloats(new float[] {-0.0f}));
    }
}
