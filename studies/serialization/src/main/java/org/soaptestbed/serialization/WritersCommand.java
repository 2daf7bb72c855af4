package org.soaptestbed.serialization;

import java.nio.charset.StandardCharsets;
import java.util.Formatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.soaptestbed.contract.Payload;

/**
 * {@code writers}: N ints written four ways, the Java counterpart of cpp/cmd_writers.cpp:
 * <pre>
 * printf   java.util.Formatter ("%d" in the item's tags) into a StringBuilder, then UTF-8
 * adb      Axis2/ADB's serializer of a sendInts request with the N items (the envelope
 *          around them is a few hundred bytes)
 * hand     the tags copied and the digits written by hand into a byte array
 * itoa     the digits alone, back to back: the lower bound
 * </pre>
 * printf, hand and ADB's items must be the same bytes (checked); the tags use the prefix
 * ADB chose.
 */
final class WritersCommand {

    private static final byte[] PAIRS = ("00010203040506070809101112131415161718192021222324252627282930"
            + "31323334353637383940414243444546474849505152535455565758596061626364656667686970"
            + "71727374757677787980818283848586878889909192939495969798" + "99").getBytes(StandardCharsets.US_ASCII);

    private WritersCommand() {
    }

    static Map<String, Object> run(Options o) throws Exception {
        int[] ints = Payload.ints(o.n, o.seed);
        Message adbMessage = Message.of("sendInts", o.n, o.seed);
        Bytes adb = new Bytes(o.n * 32 + 1024);
        Envelopes.write(adbMessage, adb);
        String tagPrefix = prefixOf(new String(adb.array(), 0, Math.min(adb.size(), 4096), StandardCharsets.UTF_8));
        byte[] open = ("<" + tagPrefix + ":items>").getBytes(StandardCharsets.US_ASCII);
        byte[] close = ("</" + tagPrefix + ":items>").getBytes(StandardCharsets.US_ASCII);
        String format = "<" + tagPrefix + ":items>%d</" + tagPrefix + ":items>";

        byte[] hand = new byte[o.n * (open.length + close.length + 11)];
        byte[] itoa = new byte[o.n * 11];
        int[] used = new int[2];
        byte[][] printed = new byte[1][];
        Timing t = o.timing;
        t.warmJit(() -> {
            adb.reset();
            Envelopes.write(adbMessage, adb);
            writeItems(ints, hand, open, close);
            return writeDigits(ints, itoa);
        });
        List<long[]> ns = t.rounds(List.of(
            () -> {
                long t0 = System.nanoTime();
                StringBuilder sb = new StringBuilder(o.n * 32);
                try (Formatter f = new Formatter(sb)) {
                    for (int v : ints) {
                        f.format(format, v);
                    }
                }
                printed[0] = sb.toString().getBytes(StandardCharsets.UTF_8);
                return System.nanoTime() - t0;
            },
            () -> {
                adb.reset();
                long t0 = System.nanoTime();
                Envelopes.write(adbMessage, adb);
                return System.nanoTime() - t0;
            },
            () -> {
                long t0 = System.nanoTime();
                used[0] = writeItems(ints, hand, open, close);
                return System.nanoTime() - t0;
            },
            () -> {
                long t0 = System.nanoTime();
                used[1] = writeDigits(ints, itoa);
                return System.nanoTime() - t0;
            }));
        String handText = new String(hand, 0, used[0], StandardCharsets.US_ASCII);
        String adbText = new String(adb.array(), 0, adb.size(), StandardCharsets.UTF_8);
        int first = adbText.indexOf(new String(open, StandardCharsets.US_ASCII));
        int last = adbText.lastIndexOf(new String(close, StandardCharsets.US_ASCII));
        String adbItems = first < 0 || last < 0 ? "" : adbText.substring(first, last + close.length);
        boolean same = handText.equals(adbItems)
                && handText.equals(new String(printed[0], StandardCharsets.US_ASCII));

        Map<String, Object> out = new LinkedHashMap<>();
        out.put("impl", "axis");
        out.put("command", "writers");
        out.put("n", o.n);
        out.put("seed", o.seed);
        out.put("bytes", used[0]);
        out.put("itoa_bytes", used[1]);
        out.put("valid", same);
        if (!same) {
            out.put("invalid_reason", "the writers' outputs differ");
        }
        String[] names = {"printf", "adb", "hand", "itoa"};
        double floor = Timing.quantile(ns.get(3), 0.5);
        Map<String, Object> techniques = new LinkedHashMap<>();
        for (int k = 0; k < names.length; k++) {
            Map<String, Object> j = Timing.json(ns.get(k));
            j.put("over_itoa", floor > 0 ? Math.round(Timing.quantile(ns.get(k), 0.5) / floor * 1000) / 1000.0 : 0);
            techniques.put(names[k], j);
        }
        out.put("ns", techniques);
        return out;
    }

    private static String prefixOf(String xml) {
        int at = xml.indexOf(":items>");
        int lt = at < 0 ? -1 : xml.lastIndexOf('<', at);
        return lt < 0 ? "tb" : xml.substring(lt + 1, at);
    }

    private static int writeItems(int[] ints, byte[] out, byte[] open, byte[] close) {
        int p = 0;
        for (int v : ints) {
            System.arraycopy(open, 0, out, p, open.length);
            p = writeInt(out, p + open.length, v);
            System.arraycopy(close, 0, out, p, close.length);
            p += close.length;
        }
        return p;
    }

    private static int writeDigits(int[] ints, byte[] out) {
        int p = 0;
        for (int v : ints) {
            p = writeInt(out, p, v);
        }
        return p;
    }

    /** The decimal digits of v at out[p]; returns the end. Two digits per step. */
    static int writeInt(byte[] out, int p, int v) {
        long u = v;
        if (u < 0) {
            out[p++] = '-';
            u = -u;
        }
        int len = 1;
        for (long x = u; x >= 10; x /= 10) {
            len++;
        }
        int end = p + len;
        int q = end;
        while (u >= 100) {
            int r = (int) (u % 100);
            u /= 100;
            out[--q] = PAIRS[2 * r + 1];
            out[--q] = PAIRS[2 * r];
        }
        if (u >= 10) {
            out[--q] = PAIRS[2 * (int) u + 1];
            out[--q] = PAIRS[2 * (int) u];
        } else {
            out[--q] = (byte) ('0' + u);
        }
        return end;
    }
}
