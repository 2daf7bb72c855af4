package org.soaptestbed.servers;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.soaptestbed.common.Json;

/**
 * {@code servers.jar server}: runs one model until its standard input ends (or says "stop"), or
 * its deadline passes, then prints its figures as one JSON line and exits. Lines on standard
 * output, one JSON object each:
 *
 * <pre>
 * {"event": "listening", "port": P, ...}   once it accepts connections
 * {"event": "reset"}                       after a "reset" line on standard input (new window)
 * {"event": "stats", "stopped_by": "stdin"|"deadline", ...Sampler figures}   last
 * </pre>
 *
 * Ending on end-of-input means the server also stops when whatever started it goes away.
 */
final class ServerCommand {

    static final Set<String> OPTIONS = Set.of("model", "pool", "work", "work-from", "host", "port", "deadline-s",
            "sample-ms");

    private ServerCommand() {
    }

    static int run(String[] args) throws IOException, InterruptedException {
        Options o = new Options(args, 1, OPTIONS);
        EchoServer.Model model = EchoServer.Model.parse(o.text("model", "thread"));
        int pool = o.integer("pool", 1000, 1, 100_000);
        Work work = Work.parse(o.text("work", "none"));
        String workFrom = o.text("work-from", "start");
        if (!workFrom.equals("start") && !workFrom.equals("reset")) {
            throw new Options.Bad("--work-from " + workFrom + ": expected start or reset (the warm-up without work)");
        }
        InetSocketAddress addr = new InetSocketAddress(o.text("host", "127.0.0.1"), o.integer("port", 0, 0, 65535));
        long deadlineS = o.number("deadline-s", 600, 1, 86_400);
        long sampleMs = o.number("sample-ms", 5, 1, 1000);

        try (EchoServer server = EchoServer.create(model, pool, work, addr);
             Sampler sampler = new Sampler(server.gauges, sampleMs)) {
            if (workFrom.equals("reset")) {
                server.holdWork();
            }
            server.start();
            sampler.start();
            Map<String, Object> hello = new LinkedHashMap<>();
            hello.put("event", "listening");
            hello.put("port", server.port());
            hello.put("model", model.toString());
            hello.put("pool", model == EchoServer.Model.POOLED ? pool : null);
            hello.put("work", work.toString());
            hello.put("pid", ProcessHandle.current().pid());
            emit(hello);

            CountDownLatch stop = new CountDownLatch(1);
            Thread control = new Thread(() -> control(server, sampler, stop), "control");
            control.setDaemon(true);
            control.start();
            boolean byInput = stop.await(deadlineS, TimeUnit.SECONDS);
            Map<String, Object> stats = new LinkedHashMap<>();
            stats.put("event", "stats");
            stats.put("stopped_by", byInput ? "stdin" : "deadline");
            stats.put("model", model.toString());
            stats.put("pool", model == EchoServer.Model.POOLED ? pool : null);
            stats.put("work", work.toString());
            stats.putAll(sampler.report());
            server.close();
            emit(stats);
        }
        return 0;
    }

    /**
     * Reads control lines: "reset" starts a new measurement window (and the per-message work,
     * if it was held); "stop" or end of input stops.
     */
    private static void control(EchoServer server, Sampler sampler, CountDownLatch stop) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                String cmd = line.trim();
                if (cmd.equals("reset")) {
                    server.releaseWork();
                    sampler.reset();
                    emit(Map.of("event", "reset"));
                } else if (cmd.equals("stop")) {
                    break;
                } else if (!cmd.isEmpty()) {
                    System.err.println("servers: unknown control line '" + cmd + "' (expected reset or stop)");
                }
            }
        } catch (IOException e) {
            // input gone: stop
        }
        stop.countDown();
    }

    static synchronized void emit(Map<String, ?> m) {
        System.out.println(Json.write(m));
        System.out.flush();
    }
}
