package org.soaptestbed.servers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Samples a server every {@code periodMs} while at least one client connection is open (the
 * measurement window): the model's live and busy threads ({@link Gauges}), the whole JVM's
 * threads and its resident memory (/proc/self/status: Threads, VmRSS). Peaks of the model's
 * threads are exact (the gauges keep them); means are over the samples. {@link #reset} starts
 * a new window and resets the kernel's peak RSS (VmHWM) through /proc/self/clear_refs, so the
 * reported peak RSS is the window's, not the warm-up's.
 */
final class Sampler implements AutoCloseable {

    private static final Path STATUS = Path.of("/proc/self/status");
    private static final Path CLEAR_REFS = Path.of("/proc/self/clear_refs");

    private final Gauges gauges;
    private final long periodMs;
    private final Thread thread;
    private volatile boolean running = true;

    private long samples;
    private double threadsSum;
    private double busySum;
    private double osThreadsSum;
    private double rssSumKb;
    private long osThreadsPeak;
    private long rssPeakKb;
    private boolean hwmReset;

    Sampler(Gauges gauges, long periodMs) {
        this.gauges = gauges;
        this.periodMs = periodMs;
        this.thread = new Thread(this::loop, "sampler");
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    private void loop() {
        while (running) {
            EchoServer.sleep(periodMs);
            if (gauges.connections.now() > 0) {
                sample();
            }
        }
    }

    private synchronized void sample() {
        Map<String, Long> st = status();
        samples++;
        threadsSum += gauges.threads.now();
        busySum += gauges.busy.now();
        long os = st.getOrDefault("Threads", -1L);
        long rss = st.getOrDefault("VmRSS", -1L);
        osThreadsSum += os;
        rssSumKb += rss;
        osThreadsPeak = Math.max(osThreadsPeak, os);
        rssPeakKb = Math.max(rssPeakKb, rss);
    }

    synchronized void reset() {
        gauges.reset();
        samples = 0;
        threadsSum = busySum = osThreadsSum = rssSumKb = 0;
        osThreadsPeak = rssPeakKb = 0;
        try {
            Files.writeString(CLEAR_REFS, "5");       // 5: reset the peak RSS (proc(5))
            hwmReset = true;
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            hwmReset = false;
        }
    }

    /** The window's figures, named as the study module reads them. */
    synchronized Map<String, Object> report() {
        Map<String, Long> st = status();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("samples", samples);
        m.put("sample_ms", periodMs);
        m.put("threads_peak", gauges.threads.peak());
        m.put("threads_mean", mean(threadsSum));
        m.put("busy_peak", gauges.busy.peak());
        m.put("busy_mean", mean(busySum));
        m.put("connections_peak", gauges.connections.peak());
        m.put("os_threads_peak", samples > 0 ? osThreadsPeak : null);
        m.put("os_threads_mean", mean(osThreadsSum));
        long hwm = st.getOrDefault("VmHWM", -1L);
        m.put("rss_peak_kb", hwmReset && hwm > 0 ? Math.max(hwm, rssPeakKb) : (samples > 0 ? rssPeakKb : null));
        m.put("rss_peak_source", hwmReset && hwm > 0 ? "VmHWM (reset at the window's start)" : "samples");
        m.put("rss_mean_kb", mean(rssSumKb));
        m.put("messages", gauges.messages.get());
        m.put("bad_frames", gauges.badFrames.get());
        m.put("ownership_violations", gauges.ownershipViolations.get());
        return m;
    }

    private Double mean(double sum) {
        return samples > 0 ? sum / samples : null;
    }

    /** The numeric fields of /proc/self/status that the sampler uses (kB for memory). */
    static Map<String, Long> status() {
        Map<String, Long> m = new LinkedHashMap<>();
        try {
            for (String line : Files.readAllLines(STATUS, StandardCharsets.US_ASCII)) {
                int colon = line.indexOf(':');
                if (colon < 0) {
                    continue;
                }
                String key = line.substring(0, colon);
                if (key.equals("Threads") || key.equals("VmRSS") || key.equals("VmHWM")) {
                    m.put(key, Long.parseLong(line.substring(colon + 1).trim().split("\\s+")[0]));
                }
            }
        } catch (IOException | NumberFormatException e) {
            // not Linux: no OS figures
        }
        return m;
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        EchoServer.join(thread);
    }
}
