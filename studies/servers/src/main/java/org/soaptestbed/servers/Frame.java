package org.soaptestbed.servers;

import java.nio.ByteBuffer;

/**
 * The wire format of one message, the same both ways: a 4-byte big-endian length, then that
 * many bytes. The server answers each message with the same frame (an echo). The client's
 * payload is printable characters, like the classic study's strings, and starts with the
 * connection and message number so that a reply sent to the wrong connection, or a stale
 * one, fails the echo check.
 */
final class Frame {

    static final int HEADER = 4;
    /** Longest payload a server accepts; a longer length closes the connection. */
    static final int MAX_LENGTH = 1 << 20;
    /** Shortest payload the client sends: room for the connection and message number. */
    static final int MIN_LENGTH = 8;

    private Frame() {
    }

    /** Fills a whole request frame (header + payload) of connection {@code conn}; message 0. */
    static void fillRequest(ByteBuffer frame, int conn, int length) {
        frame.clear();
        frame.putInt(length);
        frame.putInt(conn);
        frame.putInt(0);
        for (int i = MIN_LENGTH; i < length; i++) {
            frame.put((byte) ('a' + (conn + i) % 26));
        }
        frame.flip();
    }

    /** Makes the filled frame message number {@code msg} and rewinds it for sending. */
    static void setMessage(ByteBuffer frame, int msg) {
        frame.putInt(HEADER + 4, msg);
        frame.rewind();
    }
}
