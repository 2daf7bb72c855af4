package org.soaptestbed.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** The client counts a reply as answered only when it is its request, byte for byte, and stops by its deadline. */
class ClientDriverTest {

    /** A one-connection server on a thread of its own that answers each frame with reply.apply(frame). */
    static final class Fake implements AutoCloseable {
        final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        final Thread thread;

        Fake(UnaryOperator<byte[]> reply, int answers) throws IOException {
            thread = new Thread(() -> {
                try (Socket s = server.accept()) {
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    DataOutputStream out = new DataOutputStream(s.getOutputStream());
                    for (int i = 0; i < answers; i++) {
                        byte[] frame = new byte[in.readInt()];
                        in.readFully(frame);
                        byte[] r = reply.apply(frame);
                        out.writeInt(r.length);
                        out.write(r);
                    }
                    while (in.read() >= 0) {                // then silent until the client goes
                        continue;
                    }
                } catch (IOException e) {
                    // the client went away
                }
            });
            thread.setDaemon(true);
            thread.start();
        }

        Map<String, Object> drive(int messages, long deadlineMs) {
            InetSocketAddress at = new InetSocketAddress("127.0.0.1", server.getLocalPort());
            return new ClientDriver(at, 1, messages, 64).run(System.nanoTime() + deadlineMs * 1_000_000L);
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }

    @Test
    void an_honest_echo_is_verified() throws IOException {
        try (Fake f = new Fake(b -> b, 5)) {
            Map<String, Object> r = f.drive(5, 30_000);
            assertEquals(true, r.get("complete"));
            assertEquals(5, r.get("verified"));
        }
    }

    @Test
    void a_reply_with_one_byte_changed_is_an_error_not_an_answer() throws IOException {
        try (Fake f = new Fake(b -> {
            byte[] c = b.clone();
            c[40] ^= 1;
            return c;
        }, 5)) {
            Map<String, Object> r = f.drive(5, 30_000);
            assertEquals(false, r.get("complete"));
            assertEquals(0, r.get("verified"));
            assertEquals(1, r.get("errors"));
            assertTrue(String.valueOf(r.get("first_error")).contains("differs from the request at byte 44"),
                    String.valueOf(r.get("first_error")));
        }
    }

    @Test
    void the_reply_to_an_earlier_message_does_not_count_for_the_next() throws IOException {
        byte[][] first = new byte[1][];
        try (Fake f = new Fake(b -> {
            if (first[0] == null) {
                first[0] = b.clone();
            }
            return first[0];                                // always the reply to message 0
        }, 3)) {
            Map<String, Object> r = f.drive(3, 30_000);
            assertEquals(false, r.get("complete"));
            assertEquals(1, r.get("verified"));
        }
    }

    @Test
    void a_server_that_stops_answering_is_cut_off_by_the_deadline() throws IOException {
        try (Fake f = new Fake(b -> b, 2)) {
            Map<String, Object> r = f.drive(10, 1_000);
            assertEquals(true, r.get("deadline_hit"));
            assertEquals(false, r.get("complete"));
            assertEquals(2, r.get("verified"));
        }
    }

    @Test
    void nothing_listening_is_a_connect_error() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Map<String, Object> r = new ClientDriver(new InetSocketAddress("127.0.0.1", port), 2, 1, 64)
                .run(System.nanoTime() + 10_000_000_000L);
        assertEquals(false, r.get("complete"));
        assertTrue(String.valueOf(r.get("first_error")).startsWith("connection 1 of 2 failed"),
                String.valueOf(r.get("first_error")));
    }

    @Test
    void a_message_too_short_for_its_numbers_is_refused() {
        assertThrows(Options.Bad.class, () -> new ClientDriver(new InetSocketAddress("127.0.0.1", 1), 1, 1, 4));
    }

    @Test
    void percentiles_interpolate_like_the_analysis() {
        long[] xs = {10, 20, 30, 40};
        assertEquals(25.0, ClientDriver.percentile(xs, 50));
        assertEquals(39.7, ClientDriver.percentile(xs, 99), 1e-9);
    }
}
