package org.soaptestbed.servers;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Iterator;

/**
 * Model "poller": one thread runs an NIO {@link Selector} over the listening socket and every
 * connection, and does all the work itself — accept, read, work, write. Threads in use: 1.
 * {@link PooledSelectorServer} changes only what happens to a ready connection
 * ({@link #ready}).
 */
class SelectorServer extends EchoServer {

    /** Longest a select waits, so the loop sees a close request without a wakeup. */
    private static final long SELECT_MS = 200;
    /** Connections accepted per readiness event, so a connect burst cannot starve the rest. */
    private static final int ACCEPT_BATCH = 256;

    protected Selector selector;
    private ServerSocketChannel server;
    private volatile boolean running;
    private Thread loop;

    SelectorServer(InetSocketAddress address, Work work) {
        super(address, work);
    }

    @Override
    void start() throws IOException {
        selector = Selector.open();
        server = ServerSocketChannel.open();
        server.bind(address, BACKLOG);
        server.configureBlocking(false);
        server.register(selector, SelectionKey.OP_ACCEPT);
        running = true;
        loop = counted("selector", this::selectLoop);
        loop.start();
    }

    @Override
    int port() {
        return server.socket().getLocalPort();
    }

    private void selectLoop() {
        try {
            while (running) {
                selector.select(SELECT_MS);
                Iterator<SelectionKey> it = selector.selectedKeys().iterator();
                while (it.hasNext()) {
                    SelectionKey key = it.next();
                    it.remove();
                    if (!key.isValid()) {
                        continue;
                    }
                    if (key.isAcceptable()) {
                        acceptSome();
                    } else {
                        ready(key);
                    }
                }
            }
        } catch (IOException e) {
            System.err.println("servers: selector failed: " + e.getMessage());
        } finally {
            for (SelectionKey key : selector.keys()) {
                if (key.attachment() instanceof NioConnection c) {
                    c.close();
                }
            }
        }
    }

    private void acceptSome() {
        for (int i = 0; i < ACCEPT_BATCH; i++) {
            SocketChannel c;
            try {
                c = server.accept();
                if (c == null) {
                    return;
                }
                c.configureBlocking(false);
                c.setOption(StandardSocketOptions.TCP_NODELAY, true);
                c.register(selector, SelectionKey.OP_READ, new NioConnection(c, this));
            } catch (IOException e) {
                System.err.println("servers: accept failed: " + e.getMessage());
                return;
            }
            gauges.connections.up();
        }
    }

    /** A connection is readable or writable: the poller handles it in its own thread. */
    protected void ready(SelectionKey key) {
        NioConnection c = (NioConnection) key.attachment();
        rearm(key, c, advance(c));
    }

    /** One step of a connection's exchange, counted as busy while it runs; the interest ops
     *  it wants next, or NioConnection.CLOSED when it failed. */
    protected int advance(NioConnection c) {
        gauges.busy.up();
        try {
            return c.advance();
        } catch (IOException e) {
            return NioConnection.CLOSED;
        } finally {
            gauges.busy.down();
        }
    }

    /** Waits for {@code ops} on the connection next, or closes it. */
    protected void rearm(SelectionKey key, NioConnection c, int ops) {
        if (ops == NioConnection.CLOSED) {
            key.cancel();
            c.close();
            gauges.connections.down();
        } else {
            key.interestOps(ops);
        }
    }

    @Override
    public void close() {
        running = false;
        if (selector != null) {
            selector.wakeup();
        }
        if (loop != null) {
            join(loop);
        }
        closeWorkers();
        try {
            if (selector != null) {
                selector.close();
            }
            if (server != null) {
                server.close();
            }
        } catch (IOException e) {
            // closing anyway
        }
    }

    /** The pooled model stops its workers here. */
    protected void closeWorkers() {
    }
}
