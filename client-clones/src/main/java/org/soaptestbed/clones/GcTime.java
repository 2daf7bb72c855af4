package org.soaptestbed.clones;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JVM's collectors since it started, summed over its collector beans, for {@code GET /status}
 * "gc": {@code {"collections", "time_ns", "collectors": [names]}}. The time is what each bean
 * reports as its collections' elapsed time — the pauses of a stop-the-world collector (Serial in
 * a container of 1 GiB, G1's young and full collections on a larger host), not G1's concurrent
 * work — so a per-request client's garbage shows as collection time per request growing with load
 * (docs/predict.md, "The per-request clone's garbage"). A bean that cannot tell (-1) adds nothing.
 */
final class GcTime {

    private GcTime() {
    }

    static Map<String, Object> describe() {
        long collections = 0;
        long millis = 0;
        List<String> names = new ArrayList<>();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            names.add(gc.getName());
            collections += Math.max(gc.getCollectionCount(), 0L);
            millis += Math.max(gc.getCollectionTime(), 0L);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("collections", collections);
        m.put("time_ns", millis * 1_000_000L);
        m.put("collectors", names);
        return m;
    }
}
