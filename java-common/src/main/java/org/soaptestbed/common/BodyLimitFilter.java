package org.soaptestbed.common;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.logging.Logger;

/**
 * Rejects request bodies over MAX_MESSAGE_BYTES with HTTP 413, and bodies that take longer
 * than TOMCAT_BODY_TIMEOUT_MS to arrive with HTTP 408, each with a one-line reason.
 *
 * <p>A declared Content-Length is checked before anything reads the body. A body without
 * one (chunked) is counted as the application reads it; the read that crosses the limit
 * throws {@link BodyTooLargeException}. Every body is timed from the start of the request: a
 * read that returns after the deadline throws {@link BodyTooSlowException} (a client that
 * trickles its body a byte at a time never trips Tomcat's per-read timeout, and would hold a
 * worker thread for as long as it likes). From then on the application's response is
 * discarded ({@link LimitGuardedResponse}) and the filter answers itself. The connection is
 * closed after a 413 or 408.
 *
 * <p>After a 413 the filter reads and drops what is left of the body (at most
 * {@link #DRAIN_MS} and the larger of MAX_MESSAGE_BYTES and {@link #DRAIN_BYTES}) before the
 * connection closes. Most clients (Axis2's, curl, Python's) write their whole request before
 * they read; Tomcat closes about a second after the answer, and closing with bytes unread
 * resets the connection, so a client still writing would see "Broken pipe" instead of the
 * 413. After a 408 nothing is drained: that client is too slow to wait for.
 */
public final class BodyLimitFilter implements Filter {

    private static final Logger LOG = Logger.getLogger(BodyLimitFilter.class.getName());

    /** Thrown by the request body stream at the first byte over the limit. */
    public static final class BodyTooLargeException extends IOException {
        private static final long serialVersionUID = 1L;

        BodyTooLargeException(long maxBytes) {
            super("request body over MAX_MESSAGE_BYTES (" + maxBytes + " bytes)");
        }
    }

    /** Thrown by the request body stream at the first read past the body's deadline. */
    public static final class BodyTooSlowException extends IOException {
        private static final long serialVersionUID = 1L;

        BodyTooSlowException(long timeoutMs) {
            super("request body not received within " + timeoutMs + " ms (TOMCAT_BODY_TIMEOUT_MS)");
        }
    }

    /** Longest the rest of a refused body is read for. */
    public static final long DRAIN_MS = 2_000;
    /** Most bytes of a refused body read, unless MAX_MESSAGE_BYTES is larger. */
    public static final long DRAIN_BYTES = 8L * 1024 * 1024;

    private final long maxBytes;
    private final long bodyTimeoutMs;

    public BodyLimitFilter(long maxBytes) {
        this(maxBytes, 30_000);
    }

    public BodyLimitFilter(long maxBytes, long bodyTimeoutMs) {
        if (maxBytes < 1 || bodyTimeoutMs < 1) {
            throw new IllegalArgumentException("maxBytes and bodyTimeoutMs must be positive");
        }
        this.maxBytes = maxBytes;
        this.bodyTimeoutMs = bodyTimeoutMs;
    }

    public long maxBytes() {
        return maxBytes;
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest req = (HttpServletRequest) request;
        HttpServletResponse resp = (HttpServletResponse) response;
        long declared = req.getContentLengthLong();
        if (declared > maxBytes) {
            reject(resp, new BodyTooLargeException(maxBytes), HttpServletResponse.SC_REQUEST_ENTITY_TOO_LARGE);
            drain(req);
            return;
        }
        if (declared <= 0 && req.getHeader("Transfer-Encoding") == null) {
            chain.doFilter(request, response);      // no body to count or time
            return;
        }
        // Tomcat never hands out more than a declared length: only a chunked body is counted
        long limit = declared >= 0 ? Long.MAX_VALUE : maxBytes;
        IOException[] tripped = {null};
        long deadline = System.nanoTime() + bodyTimeoutMs * 1_000_000;
        chain.doFilter(new CountingRequest(req, limit, deadline, tripped),
                new LimitGuardedResponse(resp, () -> tripped[0] != null));
        if (tripped[0] != null) {
            if (resp.isCommitted()) {
                LOG.warning(() -> req.getRequestURI() + ": " + tripped[0].getMessage() + ", after the response was committed");
            } else {
                resp.reset();
                boolean tooSlow = tripped[0] instanceof BodyTooSlowException;
                reject(resp, tripped[0], tooSlow
                        ? HttpServletResponse.SC_REQUEST_TIMEOUT : HttpServletResponse.SC_REQUEST_ENTITY_TOO_LARGE);
                if (!tooSlow) {
                    drain(req);
                }
            }
        }
    }

    private void reject(HttpServletResponse resp, IOException why, int status) throws IOException {
        byte[] body = (why.getMessage() + "\n").getBytes(StandardCharsets.UTF_8);
        resp.setStatus(status);
        resp.setHeader("Connection", "close");   // do not read (or swallow) the rest of the body
        resp.setContentType("text/plain;charset=utf-8");
        resp.setContentLength(body.length);
        resp.getOutputStream().write(body);
        resp.flushBuffer();
    }

    /**
     * Reads and drops the rest of a refused body, within {@link #DRAIN_MS} and
     * max(MAX_MESSAGE_BYTES, {@link #DRAIN_BYTES}); the answer has been flushed already. A
     * read that fails (the client gave up, Tomcat's read timeout) ends it quietly.
     */
    private void drain(HttpServletRequest req) {
        long budget = Math.max(maxBytes, DRAIN_BYTES);
        long deadline = System.nanoTime() + DRAIN_MS * 1_000_000;
        byte[] sink = new byte[65536];
        try {
            ServletInputStream in = req.getInputStream();
            for (long read = 0; read < budget && System.nanoTime() - deadline < 0; ) {
                int n = in.read(sink);
                if (n < 0) {
                    return;
                }
                read += n;
            }
        } catch (IOException | IllegalStateException e) {
            // nothing more to read, or the body was taken as a reader: Tomcat closes as before
        }
    }

    /** The request whose body stream counts bytes and fails past the limit or the deadline. */
    private final class CountingRequest extends HttpServletRequestWrapper {
        private final long limit;
        private final long deadlineNanos;
        private final IOException[] tripped;
        private ServletInputStream stream;

        CountingRequest(HttpServletRequest req, long limit, long deadlineNanos, IOException[] tripped) {
            super(req);
            this.limit = limit;
            this.deadlineNanos = deadlineNanos;
            this.tripped = tripped;
        }

        @Override
        public ServletInputStream getInputStream() throws IOException {
            if (stream == null) {
                stream = new CountingStream(super.getInputStream());
            }
            return stream;
        }

        @Override
        public BufferedReader getReader() throws IOException {
            String enc = getCharacterEncoding();
            Charset cs = enc == null ? StandardCharsets.ISO_8859_1 : Charset.forName(enc);
            return new BufferedReader(new InputStreamReader(getInputStream(), cs));
        }

        private final class CountingStream extends ServletInputStream {
            private final ServletInputStream in;
            private long count;

            CountingStream(ServletInputStream in) {
                this.in = in;
            }

            private int counted(int n) throws IOException {
                if (tripped[0] == null && n > 0) {
                    count += n;
                    if (count > limit) {
                        tripped[0] = new BodyTooLargeException(maxBytes);
                    } else if (System.nanoTime() - deadlineNanos > 0) {
                        tripped[0] = new BodyTooSlowException(bodyTimeoutMs);
                    }
                }
                if (tripped[0] != null) {
                    throw tripped[0];
                }
                return n;
            }

            @Override
            public int read() throws IOException {
                int b = in.read();
                counted(b < 0 ? -1 : 1);
                return b;
            }

            @Override
            public int read(byte[] buf, int off, int len) throws IOException {
                return counted(in.read(buf, off, len));
            }

            @Override
            public boolean isFinished() {
                return in.isFinished();
            }

            @Override
            public boolean isReady() {
                return in.isReady();
            }

            @Override
            public void setReadListener(jakarta.servlet.ReadListener listener) {
                in.setReadListener(listener);
            }
        }
    }
}
