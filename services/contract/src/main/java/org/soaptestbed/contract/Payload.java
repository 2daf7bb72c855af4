package org.soaptestbed.contract;

/**
 * The contract's seeded payload generator (services/contract/README.md): item i of a
 * payload is made from the i-th value of SplitMix64 started at {@code seed}, so every
 * client produces the same items from (operation, n, seed).
 *
 * <pre>
 * byte    r AND 0xFF
 * int     r &gt;&gt; 32, read as a signed 32-bit integer
 * float   that int converted to binary32 (round to nearest), divided by 1024
 * double  r read as a signed 64-bit integer, converted to binary64, divided by 2^20
 * buffer  the ints, packed as little-endian int32
 * </pre>
 *
 * The seed is a uint64; Java holds it in a long with the same bits.
 */
public final class Payload {

    private Payload() {
    }

    /** SplitMix64, exactly as the contract defines it. */
    public static final class SplitMix64 {
        private long state;

        public SplitMix64(long seed) {
            this.state = seed;
        }

        public long next() {
            state += 0x9E3779B97F4A7C15L;
            long z = state;
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            return z ^ (z >>> 31);
        }
    }

    /** Byte items as ints 0..255. */
    public static int[] bytes(int n, long seed) {
        SplitMix64 r = new SplitMix64(seed);
        int[] items = new int[n];
        for (int i = 0; i < n; i++) {
            items[i] = (int) (r.next() & 0xFF);
        }
        return items;
    }

    public static int[] ints(int n, long seed) {
        SplitMix64 r = new SplitMix64(seed);
        int[] items = new int[n];
        for (int i = 0; i < n; i++) {
            items[i] = (int) (r.next() >>> 32);
        }
        return items;
    }

    public static float[] floats(int n, long seed) {
        SplitMix64 r = new SplitMix64(seed);
        float[] items = new float[n];
        for (int i = 0; i < n; i++) {
            // int -> binary32 rounds to nearest; dividing by a power of two is then exact
            items[i] = (float) (int) (r.next() >>> 32) / 1024.0f;
        }
        return items;
    }

    public static double[] doubles(int n, long seed) {
        SplitMix64 r = new SplitMix64(seed);
        double[] items = new double[n];
        for (int i = 0; i < n; i++) {
            items[i] = (double) r.next() / 1048576.0;
        }
        return items;
    }

    /** The ints packed as little-endian int32 (sendIntBuffer's data). */
    public static byte[] intBuffer(int[] ints) {
        byte[] out = new byte[ints.length * 4];
        for (int i = 0; i < ints.length; i++) {
            int v = ints[i];
            out[4 * i] = (byte) v;
            out[4 * i + 1] = (byte) (v >>> 8);
            out[4 * i + 2] = (byte) (v >>> 16);
            out[4 * i + 3] = (byte) (v >>> 24);
        }
        return out;
    }
}
