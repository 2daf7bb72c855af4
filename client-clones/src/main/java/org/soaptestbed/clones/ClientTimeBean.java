package org.soaptestbed.clones;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.management.ObjectName;
import org.soaptestbed.common.Jmx;

/** {@link ClientTimeMXBean} over one backend's counters; registered by {@link #register}. */
final class ClientTimeBean implements ClientTimeMXBean {

    private final Stats.PerBackend p;

    private ClientTimeBean(Stats.PerBackend p) {
        this.p = p;
    }

    /** org.soaptestbed:type=ClientTime,backend=B,mode=M for every backend; the names registered. */
    static List<ObjectName> register(Stats stats, ClientMode mode) {
        List<ObjectName> names = new ArrayList<>();
        for (Backend b : Backend.values()) {
            Map<String, String> keys = new LinkedHashMap<>();
            keys.put("backend", b.label());
            keys.put("mode", mode.label());
            names.add(Jmx.register("ClientTime", keys, new ClientTimeBean(stats.of(b))));
        }
        return names;
    }

    @Override
    public int getWaitingThreads() {
        return p.waiting.get();
    }

    @Override
    public long getObtained() {
        return p.timedCalls.sum();
    }

    @Override
    public long getNotObtained() {
        return p.notObtained.sum();
    }

    @Override
    public double getWaitSeconds() {
        return p.waitNanos.sum() / 1e9;
    }

    @Override
    public double getHoldSeconds() {
        return p.holdNanos.sum() / 1e9;
    }

    @Override
    public double getHoldCpuSeconds() {
        return p.holdCpuNanos.sum() / 1e9;
    }
}
