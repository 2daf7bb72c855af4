package org.soaptestbed.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/** Each model uses the threads it promises: thread ≈ connections, poller 1, pooled pool + 1. */
class ThreadCountsTest {

    static final int CONNECTIONS = 20;

    /** Waits (at most 30 s) until the condition holds; fails naming it otherwise. */
    static void await(BooleanSupplier condition, String what) {
        long end = System.nanoTime() + 30_000_000_000L;
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < end, "still not true after 30 s: " + what);
            pause(5);
        }
    }

    static void pause(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Opens n connections and completes one echo on each, so the server has accepted them all. */
    static List<Socket> openAndEcho(EchoServer s, int n) throws IOException {
        List<Socket> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Socket c = new Socket("127.0.0.1", s.port());
            c.setSoTimeout(30_000);
            out.add(c);
            DataOutputStream o = new DataOutputStream(c.getOutputStream());
            o.writeInt(8);
            o.writeLong(i);
            DataInputStream in = new DataInputStream(c.getInputStream());
            assertEquals(8, in.readInt());
            assertEquals(i, in.readLong());
        }
        return out;
    }

    static void closeAll(List<Socket> sockets) throws IOException {
        for (Socket c : sockets) {
            c.close();
        }
    }

    @Test
    void thread_per_connection_runs_one_thread_per_open_connection_plus_the_acceptor() throws IOException {
        try (EchoServer s = ServerModelsTest.started(EchoServer.Model.THREAD, 1, Work.NONE)) {
            assertEquals(1, s.gauges.threads.now());
            List<Socket> open = openAndEcho(s, CONNECTIONS);
            assertEquals(CONNECTIONS + 1, s.gauges.threads.now());
            closeAll(open);
            await(() -> s.gauges.threads.now() == 1, "connection threads end when their clients close");
            assertEquals(CONNECTIONS + 1, s.gauges.threads.peak());
        }
    }

    @Test
    void the_poller_does_everything_in_one_thread() throws IOException {
        try (EchoServer s = ServerModelsTest.started(EchoServer.Model.POLLER, 1, Work.NONE)) {
            List<Socket> open = openAndEcho(s, CONNECTIONS);
            assertEquals(CONNECTIONS, s.gauges.connections.now());
            assertEquals(1, s.gauges.threads.now());
            closeAll(open);
            assertEquals(1, s.gauges.threads.peak());
        }
    }

    @Test
    void the_pooled_model_never_runs_more_than_its_pool_and_the_selector() throws IOException {
        int pool = 4;
        try (EchoServer s = ServerModelsTest.started(EchoServer.Model.POOLED, pool, Work.NONE)) {
            assertEquals(pool + 1, s.gauges.threads.now());
            List<Socket> open = openAndEcho(s, CONNECTIONS);
            assertEquals(pool + 1, s.gauges.threads.now());
            closeAll(open);
            Map<String, Object> r = ServerModelsTest.drive(s, CONNECTIONS, 20, 256);
            assertEquals(true, r.get("complete"), () -> String.valueOf(r.get("first_error")));
            assertEquals(pool + 1, s.gauges.threads.peak());
            assertTrue(s.gauges.busy.peak() <= pool, "busy peak " + s.gauges.busy.peak());
        }
    }

    @Test
    void with_more_waiting_clients_than_workers_the_whole_pool_works_and_no_connection_is_shared()
            throws IOException {
        int pool = 4;
        try (EchoServer s = ServerModelsTest.started(EchoServer.Model.POOLED, pool, Work.parse("wait:20000"))) {
            Map<String, Object> r = ServerModelsTest.drive(s, 16, 3, 128);
            assertEquals(true, r.get("complete"), () -> String.valueOf(r.get("first_error")));
            assertEquals(pool, s.gauges.busy.peak());
            assertEquals(0L, s.gauges.ownershipViolations.get());
        }
    }

    @Test
    void the_server_closing_ends_every_thread_it_made() throws IOException {
        EchoServer s = ServerModelsTest.started(EchoServer.Model.THREAD, 1, Work.NONE);
        List<Socket> open = openAndEcho(s, 5);
        s.close();
        await(() -> s.gauges.threads.now() == 0, "acceptor and connection threads end on close");
        closeAll(open);
        EchoServer p = ServerModelsTest.started(EchoServer.Model.POOLED, 3, Work.NONE);
        p.close();
        await(() -> p.gauges.threads.now() == 0, "selector and workers end on close");
    }
}
