package org.soaptestbed.common.trace;

/**
 * A token bucket: at most {@code perSecond} acquisitions a second on average, bursts of up to
 * one second's worth. A caller decides what a refusal means (for {@link Tracer}: a sampled
 * request beyond the cap is neither recorded nor traced downstream). Thread-safe; the lock is
 * taken only for sampled requests.
 */
final class RateCap {

    /** The knob (an environment variable; a system property of the same name wins). */
    static final String KNOB = "TRACING_MAX_PER_S";
    /** Traced requests a second each tier process records at most, unless the knob says. */
    static final double DEFAULT_PER_S = 1000;

    private final double perSecond;
    private final double burst;
    private double tokens;
    private long last;

    RateCap(double perSecond) {
        this.perSecond = perSecond;
        this.burst = Math.max(1, perSecond);
        this.tokens = burst;
        this.last = System.nanoTime();
    }

    /** The knob's value, or the default when it is unset or not a positive number. */
    static RateCap fromKnob() {
        String raw = System.getProperty(KNOB, System.getenv().getOrDefault(KNOB, ""));
        double v;
        try {
            v = raw.isBlank() ? DEFAULT_PER_S : Double.parseDouble(raw.trim());
        } catch (NumberFormatException e) {
            v = DEFAULT_PER_S;
        }
        return new RateCap(v > 0 && Double.isFinite(v) ? v : DEFAULT_PER_S);
    }

    double perSecond() {
        return perSecond;
    }

    synchronized boolean tryAcquire() {
        long now = System.nanoTime();
        tokens = Math.min(burst, tokens + (now - last) / 1e9 * perSecond);
        last = now;
        if (tokens < 1) {
            return false;
        }
        tokens -= 1;
        return true;
    }
}
