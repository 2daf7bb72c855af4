package org.soaptestbed.serialization;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Repeated, interleaved timing, as the C++ side does it (cpp/timing.hpp): warm-up runs not
 * kept, then rounds -- each action once per round, in order, so a noisy neighbour slows
 * them alike -- until at least minRuns rounds and minSeconds passed, at most maxRuns.
 * Before that, the JIT is warmed by the caller (see MessageCommand).
 */
final class Timing {

    /** One timed action: returns the nanoseconds of the part it measures. */
    @FunctionalInterface
    interface Action {
        long run() throws Exception;
    }

    int warmup = 1;
    int minRuns = 3;
    double minSeconds = 0.2;
    int maxRuns = 100_000;
    double jitSeconds = 1.0;   // the JIT warm-up before a command's first timed run

    List<long[]> rounds(List<Action> actions) throws Exception {
        for (int i = 0; i < warmup; i++) {
            for (Action a : actions) {
                a.run();
            }
        }
        List<List<Long>> got = new ArrayList<>();
        actions.forEach(a -> got.add(new ArrayList<>()));
        long start = System.nanoTime();
        for (int round = 0; round < maxRuns; round++) {
            for (int k = 0; k < actions.size(); k++) {
                got.get(k).add(actions.get(k).run());
            }
            if (round + 1 >= minRuns && (System.nanoTime() - start) / 1e9 >= minSeconds) {
                break;
            }
        }
        List<long[]> out = new ArrayList<>();
        for (List<Long> g : got) {
            out.add(g.stream().mapToLong(Long::longValue).toArray());
        }
        return out;
    }

    /** Runs body repeatedly for jitSeconds (at least once): the JIT compiles its paths. */
    void warmJit(Action body) throws Exception {
        long end = System.nanoTime() + (long) (jitSeconds * 1e9);
        do {
            body.run();
        } while (System.nanoTime() < end);
    }

    static double quantile(long[] v, double q) {
        long[] s = v.clone();
        Arrays.sort(s);
        double pos = q * (s.length - 1);
        int lo = (int) pos;
        int hi = Math.min(lo + 1, s.length - 1);
        return s[lo] + (pos - lo) * (s[hi] - s[lo]);
    }

    /** The same JSON object as the C++ side: nanoseconds per run. */
    static Map<String, Object> json(long[] ns) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("runs", ns.length);
        m.put("median", Math.round(quantile(ns, 0.5)));
        m.put("min", Math.round(quantile(ns, 0)));
        m.put("p25", Math.round(quantile(ns, 0.25)));
        m.put("p75", Math.round(quantile(ns, 0.75)));
        m.put("max", Math.round(quantile(ns, 1)));
        return m;
    }
}
