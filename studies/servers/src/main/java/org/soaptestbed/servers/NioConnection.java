package org.soaptestbed.servers;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One client connection of a Selector model: a non-blocking state machine that reads a
 * frame's header, then its payload, does the work, and writes the frame back. It never reads
 * past the frame it is on, so a client that sends the next request early is served in order.
 */
final class NioConnection {

    static final int CLOSED = -1;

    /** Set while a thread handles this connection; the pooled model checks it is never taken twice. */
    final AtomicBoolean owned = new AtomicBoolean();

    private final SocketChannel channel;
    private final EchoServer server;
    private final Gauges gauges;
    private final ByteBuffer header = ByteBuffer.allocateDirect(Frame.HEADER);
    private ByteBuffer body = ByteBuffer.allocateDirect(1024);
    private final ByteBuffer[] reply = new ByteBuffer[2];
    private boolean writing;

    NioConnection(SocketChannel channel, EchoServer server) {
        this.channel = channel;
        this.server = server;
        this.gauges = server.gauges;
    }

    SocketChannel channel() {
        return channel;
    }

    /**
     * Reads, works and writes as far as the socket allows without waiting. Returns the
     * readiness to wait for next ({@code OP_READ} or {@code OP_WRITE}), or {@link #CLOSED} when
     * the client closed the connection or sent a frame longer than {@link Frame#MAX_LENGTH}.
     */
    int advance() throws IOException {
        if (writing) {
            return flush() ? SelectionKey.OP_READ : SelectionKey.OP_WRITE;
        }
        if (header.hasRemaining()) {
            if (channel.read(header) < 0) {
                return CLOSED;
            }
            if (header.hasRemaining()) {
                return SelectionKey.OP_READ;
            }
            int len = header.getInt(0);
            if (len < 0 || len > Frame.MAX_LENGTH) {
                gauges.badFrames.incrementAndGet();
                return CLOSED;
            }
            if (body.capacity() < len) {
                body = ByteBuffer.allocateDirect(len);
            }
            body.clear().limit(len);
        }
        if (body.hasRemaining()) {
            if (channel.read(body) < 0) {
                return CLOSED;
            }
            if (body.hasRemaining()) {
                return SelectionKey.OP_READ;
            }
        }
        server.work().apply();
        gauges.messages.incrementAndGet();        // answered: counted before the client can see the reply
        header.flip();
        body.flip();
        reply[0] = header;
        reply[1] = body;
        writing = true;
        return flush() ? SelectionKey.OP_READ : SelectionKey.OP_WRITE;
    }

    /** Writes what the socket takes of the reply; true when the whole reply is sent. */
    private boolean flush() throws IOException {
        channel.write(reply);
        if (header.hasRemaining() || body.hasRemaining()) {
            return false;
        }
        writing = false;
        header.clear();
        return true;
    }

    void close() {
        try {
            channel.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
