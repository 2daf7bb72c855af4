package org.soaptestbed.servers;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code servers.jar client}: drives a server ({@link ClientDriver}) and prints the result as
 * one JSON line, {"event": "result", ...}. With {@code --warmup K} it first sends K messages
 * over up to 20 connections (so both JVMs compile their hot paths), prints {"event": "warm"}
 * and waits for a "go" line on standard input — the study resets the server's counters in
 * between — before the measured run. Everything, warm-up and wait included, ends by
 * {@code --deadline-s}.
 */
final class ClientCommand {

    static final Set<String> OPTIONS = Set.of("host", "port", "connections", "messages", "length", "warmup",
            "deadline-s");
    /** Most connections the warm-up opens. */
    static final int WARMUP_CONNECTIONS = 20;

    private ClientCommand() {
    }

    static int run(String[] args) throws IOException {
        Options o = new Options(args, 1, OPTIONS);
        InetSocketAddress addr = new InetSocketAddress(o.text("host", "127.0.0.1"), o.integer("port", 0, 1, 65535));
        if (!addr.getAddress().isLoopbackAddress()) {
            throw new Options.Bad("--host " + o.text("host", "") + ": the study runs on loopback only");
        }
        int n = o.integer("connections", 100, 1, 100_000);
        int m = o.integer("messages", 100, 1, 10_000_000);
        int length = o.integer("length", 1024, Frame.MIN_LENGTH, Frame.MAX_LENGTH);
        int warmup = o.integer("warmup", 0, 0, 10_000_000);
        long deadline = System.nanoTime() + o.number("deadline-s", 120, 1, 86_400) * 1_000_000_000L;
        ClientDriver measured = new ClientDriver(addr, n, m, length);

        if (warmup > 0) {
            int wn = Math.min(n, WARMUP_CONNECTIONS);
            Map<String, Object> warm = new ClientDriver(addr, wn, (warmup + wn - 1) / wn, length).run(deadline);
            Map<String, Object> event = new LinkedHashMap<>();
            event.put("event", "warm");
            event.put("complete", warm.get("complete"));
            event.put("completion_s", warm.get("completion_s"));
            event.put("first_error", warm.get("first_error"));
            ServerCommand.emit(event);
            if (!Boolean.TRUE.equals(warm.get("complete"))) {
                return 1;
            }
            if (!awaitGo(deadline)) {
                System.err.println("servers: no 'go' on standard input before the deadline");
                return 1;
            }
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("event", "result");
        result.putAll(measured.run(deadline));
        ServerCommand.emit(result);
        return 0;
    }

    /** Waits for a "go" line; false at end of input, on another line, or when the deadline passes first. */
    private static boolean awaitGo(long deadline) {
        CompletableFuture<String> line = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try {
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                line.complete(in.readLine());
            } catch (IOException e) {
                line.complete(null);
            }
        }, "go-reader");
        reader.setDaemon(true);
        reader.start();
        try {
            String got = line.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            return got != null && got.trim().equals("go");
        } catch (TimeoutException | ExecutionException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
