package org.soaptestbed.contract;

/**
 * The checksum of every send* response (services/contract/README.md): the 32-bit FNV-1a
 * hash of the items' canonical bytes, returned as an unsignedInt (here a long in
 * [0, 2^32)).
 *
 * <pre>
 * h = 2166136261
 * for each canonical byte b:  h = ((h XOR b) * 16777619) mod 2^32
 * </pre>
 *
 * Canonical bytes: a byte is itself; an int is 4 bytes little-endian; a float is its
 * binary32 bit pattern, 4 bytes little-endian; a double its binary64 pattern, 8 bytes
 * little-endian; an int buffer is its bytes as they are.
 */
public final class Checksum {

    /** FNV offset basis; also the checksum of no items. */
    public static final long EMPTY = 2166136261L;
    private static final int OFFSET = (int) EMPTY;
    private static final int PRIME = 16777619;

    private Checksum() {
    }

    private static int step(int h, int b) {
        return (h ^ (b & 0xFF)) * PRIME;
    }

    private static int stepLE32(int h, int v) {
        h = step(h, v);
        h = step(h, v >>> 8);
        h = step(h, v >>> 16);
        return step(h, v >>> 24);
    }

    private static long unsigned(int h) {
        return h & 0xFFFFFFFFL;
    }

    /** Of raw bytes (sendIntBuffer's decoded data), {@code length} of them from {@code off}. */
    public static long ofBytes(byte[] data, int off, int length) {
        int h = OFFSET;
        for (int i = off, end = off + length; i < end; i++) {
            h = step(h, data[i]);
        }
        return unsigned(h);
    }

    public static long ofBytes(byte[] data) {
        return ofBytes(data, 0, data.length);
    }

    /** Of unsignedByte items held as ints 0..255 (how sendBytes items are counted). */
    public static long ofUnsignedBytes(int[] items) {
        int h = OFFSET;
        for (int v : items) {
            h = step(h, v);
        }
        return unsigned(h);
    }

    public static long ofInts(int[] items) {
        int h = OFFSET;
        for (int v : items) {
            h = stepLE32(h, v);
        }
        return unsigned(h);
    }

    public static long ofFloats(float[] items) {
        int h = OFFSET;
        for (float v : items) {
            h = stepLE32(h, Float.floatToRawIntBits(v));
        }
        return unsigned(h);
    }

    public static long ofDoubles(double[] items) {
        int h = OFFSET;
        for (double v : items) {
            long bits = Double.doubleToRawLongBits(v);
            h = stepLE32(h, (int) bits);
            h = stepLE32(h, (int) (bits >>> 32));
        }
        return unsigned(h);
    }
}
