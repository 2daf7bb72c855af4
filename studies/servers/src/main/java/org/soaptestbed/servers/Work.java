package org.soaptestbed.servers;

import java.util.concurrent.locks.LockSupport;
import org.soaptestbed.common.Demand;

/**
 * The work a server does for each message before it answers, taken in the thread that
 * handles the message — which is the point: the models differ in which thread that is.
 *
 * <pre>
 * none        echo at once
 * cpu:&lt;µs&gt;    burn that much of the handling thread's own CPU time (Demand.burn)
 * wait:&lt;µs&gt;   park the thread that long (a stand-in for a disk or a back-end call)
 * </pre>
 *
 * <p>The wait parks with {@link LockSupport#parkNanos} rather than {@code Thread.sleep}: on JDK 17
 * {@code Thread.sleep(0, nanos)} rounds any sub-millisecond sleep up to a whole millisecond,
 * which would make wait:200 a 1 ms wait.
 */
record Work(Kind kind, long micros) {

    enum Kind { NONE, CPU, WAIT }

    static final Work NONE = new Work(Kind.NONE, 0);

    static Work parse(String text) {
        String t = text.trim().toLowerCase();
        if (t.equals("none")) {
            return NONE;
        }
        int colon = t.indexOf(':');
        String kind = colon < 0 ? t : t.substring(0, colon);
        if (colon > 0 && (kind.equals("cpu") || kind.equals("wait"))) {
            try {
                long us = Long.parseLong(t.substring(colon + 1));
                if (us >= 0 && us <= Demand.MAX_MICROS) {
                    return us == 0 ? NONE : new Work(kind.equals("cpu") ? Kind.CPU : Kind.WAIT, us);
                }
            } catch (NumberFormatException e) {
                // falls through to the message below
            }
        }
        throw new Options.Bad("--work " + text + ": expected none, cpu:<µs> or wait:<µs> with µs from 0 to "
                + Demand.MAX_MICROS);
    }

    /** Does this message's work in the calling thread. */
    void apply() {
        switch (kind) {
            case CPU -> Demand.burn(micros);
            case WAIT -> park(micros);
            default -> { }
        }
    }

    /** Parks until {@code micros} have passed (a spurious wake-up parks again for the rest). */
    static void park(long micros) {
        long end = System.nanoTime() + micros * 1000;
        for (long left = micros * 1000; left > 0; left = end - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    @Override
    public String toString() {
        return kind == Kind.NONE ? "none" : kind.name().toLowerCase() + ":" + micros;
    }
}
