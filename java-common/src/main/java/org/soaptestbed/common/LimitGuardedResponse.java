package org.soaptestbed.common;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.util.function.BooleanSupplier;

/**
 * The response handed to the application while a chunked body is being counted. Once the
 * body went over the limit, everything the application does to the response (status,
 * errors, body bytes, flushes) is dropped, so that the response stays uncommitted and
 * {@link BodyLimitFilter} can replace it with its 413.
 */
final class LimitGuardedResponse extends HttpServletResponseWrapper {
    private final BooleanSupplier tripped;
    private ServletOutputStream stream;
    private PrintWriter writer;

    LimitGuardedResponse(HttpServletResponse resp, BooleanSupplier tripped) {
        super(resp);
        this.tripped = tripped;
    }

    @Override
    public void setStatus(int sc) {
        if (!tripped.getAsBoolean()) {
            super.setStatus(sc);
        }
    }

    @Override
    public void sendError(int sc) throws IOException {
        if (!tripped.getAsBoolean()) {
            super.sendError(sc);
        }
    }

    @Override
    public void sendError(int sc, String msg) throws IOException {
        if (!tripped.getAsBoolean()) {
            super.sendError(sc, msg);
        }
    }

    @Override
    public void flushBuffer() throws IOException {
        if (!tripped.getAsBoolean()) {
            super.flushBuffer();
        }
    }

    @Override
    public ServletOutputStream getOutputStream() throws IOException {
        if (stream == null) {
            stream = new GuardedStream(super.getOutputStream());
        }
        return stream;
    }

    @Override
    public PrintWriter getWriter() throws IOException {
        if (writer == null) {
            String enc = getCharacterEncoding();
            writer = new PrintWriter(new OutputStreamWriter(getOutputStream(),
                    enc == null ? Charset.forName("ISO-8859-1") : Charset.forName(enc)));
        }
        return writer;
    }

    private final class GuardedStream extends ServletOutputStream {
        private final ServletOutputStream out;

        GuardedStream(ServletOutputStream out) {
            this.out = out;
        }

        @Override
        public void write(int b) throws IOException {
            if (!tripped.getAsBoolean()) {
                out.write(b);
            }
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (!tripped.getAsBoolean()) {
                out.write(b, off, len);
            }
        }

        @Override
        public void flush() throws IOException {
            if (!tripped.getAsBoolean()) {
                out.flush();
            }
        }

        @Override
        public void close() throws IOException {
            if (!tripped.getAsBoolean()) {
                out.close();
            }
        }

        @Override
        public boolean isReady() {
            return out.isReady();
        }

        @Override
        public void setWriteListener(WriteListener listener) {
            out.setWriteListener(listener);
        }
    }
}
