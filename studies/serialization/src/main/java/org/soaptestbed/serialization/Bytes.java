package org.soaptestbed.serialization;

import jakarta.activation.DataHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Arrays;

/**
 * A growable byte buffer to serialize into, kept from one run to the next (reset() keeps
 * the array, so a timed run does not pay for growing it), and reading helpers.
 */
final class Bytes extends OutputStream {

    private byte[] buf;
    private int size;

    Bytes(int capacity) {
        buf = new byte[Math.max(capacity, 64)];
    }

    @Override
    public void write(int b) {
        ensure(1);
        buf[size++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) {
        ensure(len);
        System.arraycopy(b, off, buf, size, len);
        size += len;
    }

    private void ensure(int more) {
        if (size + more > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
        }
    }

    void reset() {
        size = 0;
    }

    int size() {
        return size;
    }

    byte[] array() {
        return buf;
    }

    byte[] copy() {
        return Arrays.copyOf(buf, size);
    }

    /** Everything a DataHandler holds (base64Binary, or an MTOM attachment). */
    static byte[] of(DataHandler h) throws IOException {
        if (h == null) {
            return new byte[0];
        }
        try (InputStream in = h.getInputStream()) {
            return in.readAllBytes();
        }
    }
}
