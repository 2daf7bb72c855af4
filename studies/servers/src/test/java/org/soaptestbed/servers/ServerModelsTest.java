package org.soaptestbed.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every model answers every message correctly, and refuses what it must refuse. */
class ServerModelsTest {

    static final InetSocketAddress LOOPBACK = new InetSocketAddress("127.0.0.1", 0);

    static EchoServer started(EchoServer.Model model, int pool, Work work) throws IOException {
        EchoServer s = EchoServer.create(model, pool, work, LOOPBACK);
        s.start();
        return s;
    }

    static Map<String, Object> drive(EchoServer s, int n, int m, int length) {
        InetSocketAddress at = new InetSocketAddress("127.0.0.1", s.port());
        return new ClientDriver(at, n, m, length).run(System.nanoTime() + 60_000_000_000L);
    }

    @ParameterizedTest
    @EnumSource(EchoServer.Model.class)
    void every_model_echoes_every_message_of_every_connection(EchoServer.Model model) throws IOException {
        try (EchoServer s = started(model, 3, Work.NONE)) {
            Map<String, Object> r = drive(s, 8, 40, 1024);
            assertEquals(true, r.get("complete"), () -> String.valueOf(r.get("first_error")));
            assertEquals(320, r.get("verified"));
            assertEquals(0, r.get("errors"));
            assertEquals(320L, s.gauges.messages.get());
            assertEquals(0L, s.gauges.ownershipViolations.get());
        }
    }

    @ParameterizedTest
    @EnumSource(EchoServer.Model.class)
    void messages_longer_than_the_first_buffer_and_the_socket_buffer_are_echoed_whole(EchoServer.Model model)
            throws IOException {
        try (EchoServer s = started(model, 2, Work.NONE)) {
            Map<String, Object> r = drive(s, 3, 4, 600_000);     // several reads and partial writes per frame
            assertEquals(true, r.get("complete"), () -> String.valueOf(r.get("first_error")));
            assertEquals(12, r.get("verified"));
        }
    }

    @ParameterizedTest
    @EnumSource(EchoServer.Model.class)
    void the_per_message_work_is_done_for_every_message(EchoServer.Model model) throws IOException {
        try (EchoServer s = started(model, 2, Work.parse("cpu:200"))) {
            Map<String, Object> r = drive(s, 4, 10, 512);
            assertEquals(true, r.get("complete"), () -> String.valueOf(r.get("first_error")));
            assertEquals(40L, s.gauges.messages.get());
        }
    }

    @ParameterizedTest
    @EnumSource(EchoServer.Model.class)
    void a_frame_longer_than_the_limit_closes_the_connection(EchoServer.Model model) throws IOException {
        try (EchoServer s = started(model, 2, Work.NONE);
             Socket c = new Socket("127.0.0.1", s.port())) {
            c.setSoTimeout(30_000);
            new DataOutputStream(c.getOutputStream()).writeInt(Frame.MAX_LENGTH + 1);
            assertEquals(-1, c.getInputStream().read());
            ThreadCountsTest.await(() -> s.gauges.badFrames.get() == 1, "the server counts the bad frame");
            ThreadCountsTest.await(() -> s.gauges.connections.now() == 0, "the connection is closed");
        }
    }

    @ParameterizedTest
    @EnumSource(EchoServer.Model.class)
    void a_request_sent_in_pieces_is_answered_once_whole(EchoServer.Model model) throws IOException {
        try (EchoServer s = started(model, 2, Work.NONE);
             Socket c = new Socket("127.0.0.1", s.port())) {
            c.setTcpNoDelay(true);
            c.setSoTimeout(30_000);
            DataOutputStream out = new DataOutputStream(c.getOutputStream());
            out.write(new byte[] {0, 0});                  // half a header ...
            out.flush();
            ThreadCountsTest.pause(50);
            out.write(new byte[] {0, 3, 'a'});             // ... the rest, and a third of the payload
            out.flush();
            ThreadCountsTest.pause(50);
            out.write(new byte[] {'b', 'c'});
            out.flush();
            DataInputStream in = new DataInputStream(c.getInputStream());
            assertEquals(3, in.readInt());
            byte[] got = new byte[3];
            in.readFully(got);
            assertEquals("abc", new String(got, java.nio.charset.StandardCharsets.US_ASCII));
        }
    }

    @Test
    void a_server_refuses_to_listen_beyond_loopback() {
        Options.Bad e = assertThrows(Options.Bad.class,
                () -> EchoServer.create(EchoServer.Model.THREAD, 1, Work.NONE, new InetSocketAddress("10.1.2.3", 0)));
        assertTrue(e.getMessage().contains("loopback"), e.getMessage());
    }

    @Test
    void held_work_is_skipped_until_released() throws IOException {
        try (EchoServer s = started(EchoServer.Model.POLLER, 1, Work.parse("wait:5000"))) {
            s.holdWork();
            assertEquals(Work.NONE, s.work());
            s.releaseWork();
            assertEquals(Work.parse("wait:5000"), s.work());
        }
    }
}
