package org.soaptestbed.servers;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Model "thread": a blocking {@link ServerSocket}, one acceptor thread, and a new thread for
 * each connection that reads a frame, does the work, writes the reply, until the client
 * closes. Threads in use: connections + 1.
 */
final class ThreadPerConnectionServer extends EchoServer {

    /** Pause after a failed accept (e.g. out of file descriptors) so the loop does not spin. */
    private static final long ACCEPT_RETRY_MS = 10;

    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean running;
    private ServerSocket server;
    private Thread acceptor;

    ThreadPerConnectionServer(InetSocketAddress address, Work work) {
        super(address, work);
    }

    @Override
    void start() throws IOException {
        server = new ServerSocket();
        server.bind(address, BACKLOG);
        running = true;
        acceptor = counted("acceptor", this::acceptLoop);
        acceptor.start();
    }

    @Override
    int port() {
        return server.getLocalPort();
    }

    private void acceptLoop() {
        int n = 0;
        while (running) {
            Socket s;
            try {
                s = server.accept();
                s.setTcpNoDelay(true);
            } catch (IOException e) {
                if (running) {
                    System.err.println("servers: accept failed: " + e.getMessage());
                    EchoServer.sleep(ACCEPT_RETRY_MS);
                }
                continue;
            }
            open.add(s);
            gauges.connections.up();
            counted("connection-" + (++n), () -> serve(s)).start();
        }
    }

    private void serve(Socket s) {
        byte[] buf = new byte[Frame.HEADER + 1024];
        try (s) {
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            while (readFully(in, buf, 0, Frame.HEADER)) {
                int len = ByteBuffer.wrap(buf, 0, Frame.HEADER).getInt();
                if (len < 0 || len > Frame.MAX_LENGTH) {
                    gauges.badFrames.incrementAndGet();
                    return;
                }
                if (buf.length < Frame.HEADER + len) {
                    byte[] bigger = new byte[Frame.HEADER + len];
                    System.arraycopy(buf, 0, bigger, 0, Frame.HEADER);
                    buf = bigger;
                }
                gauges.busy.up();
                try {
                    if (!readFully(in, buf, Frame.HEADER, len)) {
                        return;
                    }
                    work().apply();
                    gauges.messages.incrementAndGet();   // counted before the client can see the reply
                    out.write(buf, 0, Frame.HEADER + len);
                } finally {
                    gauges.busy.down();
                }
            }
        } catch (IOException e) {
            // the client went away or the server is closing: the connection ends
        } finally {
            open.remove(s);
            gauges.connections.down();
        }
    }

    /** Reads exactly n bytes; false at end of stream. */
    private static boolean readFully(InputStream in, byte[] buf, int off, int n) throws IOException {
        int got = 0;
        while (got < n) {
            int r = in.read(buf, off + got, n - got);
            if (r < 0) {
                return false;
            }
            got += r;
        }
        return true;
    }

    @Override
    public void close() {
        running = false;
        try {
            if (server != null) {
                server.close();
            }
        } catch (IOException e) {
            // closing anyway
        }
        for (Socket s : open) {
            try {
                s.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
        if (acceptor != null) {
            join(acceptor);
        }
    }
}
