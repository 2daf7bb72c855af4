package org.soaptestbed.serialization;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * An HTTP endpoint on 127.0.0.1 that takes what the generated stub posts: it counts every
 * byte of each request as it arrived (request line, headers, chunk framing, body), hashes
 * the body (de-chunked, SHA-256) and keeps all the bytes when asked, and answers a fixed
 * Digest response for the operation so the stub's call completes. Keep-alive connections
 * are served request after request. Not a service: the answer's count and checksum are 0.
 */
final class HttpSink implements AutoCloseable {

    /** One request as received: its byte count on the wire, the SHA-256 of its body
     *  (de-chunked) and, when kept, all its bytes as they came (headers and framing). */
    record Received(long wireBytes, byte[] bodySha256, byte[] wire) {
    }

    private static final int TIMEOUT_MS = 120_000;

    private final ServerSocket server;
    private final boolean keepWire;
    private final BlockingQueue<Received> received = new ArrayBlockingQueue<>(64);
    private final Thread acceptor;
    private volatile boolean closed;

    HttpSink(boolean keepWire) throws IOException {
        this.keepWire = keepWire;
        server = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
        acceptor = new Thread(this::acceptLoop, "http-sink");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    String endpoint() {
        return "http://127.0.0.1:" + server.getLocalPort() + "/axis";
    }

    /** The next request the sink finished reading. */
    Received next() throws InterruptedException, IOException {
        Received r = received.poll(TIMEOUT_MS, TimeUnit.MILLISECONDS);
        if (r == null) {
            throw new IOException("the HTTP sink received no request in " + TIMEOUT_MS / 1000 + " s");
        }
        return r;
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket s = server.accept();
                Thread t = new Thread(() -> serve(s), "http-sink-connection");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;  // closed
            }
        }
    }

    private void serve(Socket s) {
        try (s) {
            s.setSoTimeout(TIMEOUT_MS);
            s.setTcpNoDelay(true);
            InputStream in = new BufferedInputStream(s.getInputStream(), 1 << 16);
            OutputStream out = s.getOutputStream();
            while (!closed) {
                Counted c = new Counted(in, keepWire);
                String head = c.head();
                if (head == null) {
                    return;  // the client closed the connection
                }
                c.body(head);
                received.offer(new Received(c.count, c.sha.digest(), c.wire == null ? null : c.wire.toByteArray()));
                out.write(response(operation(head)));
                out.flush();
            }
        } catch (IOException e) {
            // the client went away; nothing to answer
        }
    }

    /** The SOAPAction's operation ("urn:sendInts" -> sendInts). */
    private static String operation(String head) {
        for (String line : head.split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("soapaction:")) {
                String v = line.substring(line.indexOf(':') + 1).trim().replace("\"", "");
                return v.startsWith("urn:") ? v.substring(4) : v;
            }
        }
        return "sendInts";
    }

    private static byte[] response(String op) {
        String body = "<soapenv:Envelope xmlns:soapenv=\"http://schemas.xmlsoap.org/soap/envelope/\">"
                + "<soapenv:Body><tb:" + op + "Response xmlns:tb=\"http://soaptestbed.org/contract/v1\">"
                + "<tb:count>0</tb:count><tb:checksum>0</tb:checksum></tb:" + op + "Response>"
                + "</soapenv:Body></soapenv:Envelope>";
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        String head = "HTTP/1.1 200 OK\r\nContent-Type: text/xml; charset=UTF-8\r\nContent-Length: "
                + b.length + "\r\n\r\n";
        byte[] h = head.getBytes(StandardCharsets.US_ASCII);
        byte[] all = new byte[h.length + b.length];
        System.arraycopy(h, 0, all, 0, h.length);
        System.arraycopy(b, 0, all, h.length, b.length);
        return all;
    }

    /** Reads one request from in, counting every byte. */
    private static final class Counted {
        private final InputStream in;
        final ByteArrayOutputStream wire;
        final MessageDigest sha = sha256();
        long count;

        Counted(InputStream in, boolean keep) {
            this.in = in;
            this.wire = keep ? new ByteArrayOutputStream() : null;
        }

        int read() throws IOException {
            int b = in.read();
            if (b >= 0) {
                count++;
                if (wire != null) {
                    wire.write(b);
                }
            }
            return b;
        }

        String line() throws IOException {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            for (int c; (c = read()) >= 0; ) {
                if (c == '\n') {
                    String s = b.toString(StandardCharsets.US_ASCII);
                    return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
                }
                b.write(c);
            }
            return b.size() == 0 ? null : b.toString(StandardCharsets.US_ASCII);
        }

        /** Request line and headers, CRLF-joined; null at end of stream. */
        String head() throws IOException {
            StringBuilder h = new StringBuilder();
            for (String l; (l = line()) != null; ) {
                if (l.isEmpty()) {
                    return h.toString();
                }
                h.append(l).append("\r\n");
            }
            return null;
        }

        void body(String head) throws IOException {
            String lower = head.toLowerCase(Locale.ROOT);
            if (lower.contains("transfer-encoding: chunked")) {
                for (;;) {
                    String size = line();
                    int len = Integer.parseInt(size.split(";")[0].trim(), 16);
                    if (len == 0) {
                        while (!line().isEmpty()) {  // trailers, then the empty line
                        }
                        return;
                    }
                    copy(len);
                    line();  // CRLF after the chunk
                }
            }
            int at = lower.indexOf("content-length:");
            long len = at < 0 ? 0 : Long.parseLong(lower.substring(at + 15, lower.indexOf('\r', at)).trim());
            copy(len);
        }

        void copy(long len) throws IOException {
            byte[] buf = new byte[1 << 16];
            while (len > 0) {
                int r = in.read(buf, 0, (int) Math.min(buf.length, len));
                if (r < 0) {
                    throw new IOException("the request ended early");
                }
                count += r;
                len -= r;
                sha.update(buf, 0, r);
                if (wire != null) {
                    wire.write(buf, 0, r);
                }
            }
        }
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
    }
}
