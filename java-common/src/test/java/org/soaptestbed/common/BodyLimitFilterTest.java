package org.soaptestbed.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A real TomcatServer on a free loopback port, with an echo servlet behind the limit. */
class BodyLimitFilterTest {

    private static final int LIMIT = 1000;
    private static final int BODY_TIMEOUT_MS = 1500;
    private static TomcatServer server;

    /** Echoes the request body; answers 500 if reading it failed, as an application would. */
    static final class Echo extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            byte[] body;
            try {
                body = req.getInputStream().readAllBytes();
            } catch (IOException e) {
                resp.setStatus(500);
                resp.getOutputStream().write(("failed: " + e.getMessage()).getBytes(StandardCharsets.UTF_8));
                resp.flushBuffer();
                return;
            }
            resp.setContentType("application/octet-stream");
            resp.getOutputStream().write(body);
        }
    }

    @BeforeAll
    static void start() throws Exception {
        TomcatSettings s = new TomcatSettings("127.0.0.1", 0, 4, 1, 10, 100, 5000, 5000, 100, LIMIT,
                BODY_TIMEOUT_MS);
        server = new TomcatServer("test", s).addServlet("echo", new Echo(), "/echo");
        server.start(Map.of());
    }

    @AfterAll
    static void stop() {
        server.stop();
    }

    private static String exchange(String head, byte[] body) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            try {
                out.write(body);
                out.flush();
            } catch (IOException closedEarly) {
                // the server may answer and close before reading a rejected body
            }
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            in.transferTo(got);
            return got.toString(StandardCharsets.ISO_8859_1);
        }
    }

    private static byte[] chunked(int size) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int left = size; left > 0; left -= 100) {
            int n = Math.min(100, left);
            b.writeBytes((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            b.writeBytes(new byte[n]);
            b.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        b.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        return b.toByteArray();
    }

    @Test
    void healthAnswersOk() throws IOException {
        String r = exchange("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", new byte[0]);
        assertTrue(r.startsWith("HTTP/1.1 200"), r);
        assertTrue(r.endsWith("ok\n"), r);
    }

    @Test
    void aBodyWithinTheLimitReachesTheApplication() throws IOException {
        String r = exchange("POST /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: "
                + LIMIT + "\r\n\r\n", new byte[LIMIT]);
        assertTrue(r.startsWith("HTTP/1.1 200"), r);
    }

    @Test
    void aDeclaredLengthOverTheLimitIsRejectedWith413() throws IOException {
        String r = exchange("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: " + (LIMIT + 1)
                + "\r\n\r\n", new byte[LIMIT + 1]);
        assertTrue(r.startsWith("HTTP/1.1 413"), r);
        assertTrue(r.contains("MAX_MESSAGE_BYTES (" + LIMIT + " bytes)"), r);
    }

    @Test
    void aChunkedBodyWithinTheLimitReachesTheApplication() throws IOException {
        String r = exchange("POST /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n", chunked(LIMIT));
        assertTrue(r.startsWith("HTTP/1.1 200"), r);
    }

    @Test
    void aChunkedBodyOverTheLimitIsCutOffWith413AndTheApplicationAnswerIsDropped() throws IOException {
        String r = exchange("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
                chunked(LIMIT * 5));
        assertTrue(r.startsWith("HTTP/1.1 413"), r);
        assertTrue(!r.contains("failed:"), r);
        assertEquals(1, r.split("HTTP/1.1 ").length - 1, r);
    }

    @Test
    void aBodyTrickledInPastItsDeadlineIsCutOffWith408() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            long t0 = System.nanoTime();
            try {
                for (int i = 0; i < 500; i++) {       // a byte every 100 ms: 50 s if nothing cut it
                    out.write('x');
                    out.flush();
                    Thread.sleep(100);
                    if (socket.getInputStream().available() > 0) {
                        break;
                    }
                }
            } catch (IOException closed) {
                // the server answered and closed: what is asserted below
            }
            String r = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            assertTrue(r.startsWith("HTTP/1.1 408"), r);
            assertTrue(r.contains("TOMCAT_BODY_TIMEOUT_MS"), r);
            assertTrue(System.nanoTime() - t0 < 40_000_000_000L, "cut long before the body's end");
        }
    }

    /**
     * A client that writes its whole request before it reads (Axis2's and most HTTP clients)
     * still reads the 413 when the server refused the body before the end of it arrived: the
     * server reads and drops the rest of the body before it closes. Closing with unread bytes
     * would reset the connection, and the client's next write fails with "Broken pipe".
     */
    @ParameterizedTest
    @ValueSource(strings = {"Content-Length: " + (LIMIT * 50), "Transfer-Encoding: chunked"})
    void aClientStillSendingItsRefusedBodyReadsThe413NotAReset(String framing) throws Exception {
        byte[] body = framing.startsWith("Content-Length") ? new byte[LIMIT * 50] : chunked(LIMIT * 50);
        int half = body.length / 2;
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST /echo HTTP/1.1\r\nHost: x\r\n" + framing + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(body, 0, half);
            out.flush();
            Thread.sleep(1500);             // refused by now; Tomcat closes a second after its answer
            out.write(body, half, body.length - half);
            out.flush();
            String r = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            assertTrue(r.startsWith("HTTP/1.1 413"), r);
            assertEquals(1, r.split("HTTP/1.1 ").length - 1, r);
        }
    }
}
