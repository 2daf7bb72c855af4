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
 * Rejects request bodies over MAX_MESSAGE_BYTES with HTTP 413 and a one-line reason.
 *
 * <p>A declared Content-Length is checked before anything reads the body. A body without
 * one (chunked) is counted as the application reads it; the read that crosses the limit
 * throws {@link BodyTooLargeException}, from then on the application's response is
 * discarded ({@link LimitGuardedResponse}), and the filter answers 413 itself. The
 * connection is closed after a 413 so the rest of the body is never read.
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

    private final long maxBytes;

    public BodyLimitFilter(long maxBytes) {
        if (maxBytes < 1) {
            throw new IllegalArgumentException("maxBytes must be positive");
        }
        this.maxBytes = maxBytes;
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
            reject(resp);
            return;
        }
        if (declared >= 0 || req.getHeader("Transfer-Encoding") == null) {
            // Tomcat never hands out more than the declared length: nothing to count.
            chain.doFilter(request, response);
            return;
        }
        boolean[] tripped = {false};
        chain.doFilter(new CountingRequest(req, maxBytes, tripped),
                new LimitGuardedResponse(resp, () -> tripped[0]));
        if (tripped[0]) {
            if (resp.isCommitted()) {
                LOG.warning(() -> req.getRequestURI() + ": body over the limit after the response was committed");
            } else {
                resp.reset();
                reject(resp);
            }
        }
    }

    private void reject(HttpServletResponse resp) throws IOException {
        byte[] body = (new BodyTooLargeException(maxBytes).getMessage() + "\n")
                .getBytes(StandardCharsets.UTF_8);
        resp.setStatus(HttpServletResponse.SC_REQUEST_ENTITY_TOO_LARGE);
        resp.setHeader("Connection", "close");   // do not read (or swallow) the rest of the body
        resp.setContentType("text/plain;charset=utf-8");
        resp.setContentLength(body.length);
        resp.getOutputStream().write(body);
        resp.flushBuffer();
    }

    /** The request whose body stream counts bytes and fails past the limit. */
    private static final class CountingRequest extends HttpServletRequestWrapper {
        private final long maxBytes;
        private final boolean[] tripped;
        private ServletInputStream stream;

        CountingRequest(HttpServletRequest req, long maxBytes, boolean[] tripped) {
            super(req);
            this.maxBytes = maxBytes;
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

            private int counted(int n) throws BodyTooLargeException {
                if (n > 0) {
                    count += n;
                    if (count > maxBytes) {
                        tripped[0] = true;
                    }
                }
                if (tripped[0]) {
                    throw new BodyTooLargeException(maxBytes);
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
