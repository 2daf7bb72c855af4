package org.soaptestbed.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DemandTest {

    @Test
    void knobsAreReadPerPointAndDefaultToZero() {
        Env env = new Env(Map.of("DEMAND_SERVICE_CPU_US", "150", "DEMAND_SERVICE_LOCKED", "1"));
        Demand service = Demand.fromEnv(env, "SERVICE");
        Demand clone = Demand.fromEnv(env, "CLONE");
        assertEquals(150, service.cpuMicros());
        assertEquals(0, service.waitMicros());
        assertTrue(service.locked());
        assertTrue(clone.isZero());
        assertEquals(1, service.describe().get("DEMAND_SERVICE_LOCKED"));
    }

    @Test
    void burnUsesAtLeastTheRequestedThreadCpuTime() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadCpuTime();
        Demand.burn(20_000);
        long usedNanos = threads.getCurrentThreadCpuTime() - before;
        assertTrue(usedNanos >= 20_000_000L, "used " + usedNanos + " ns");
    }

    @Test
    void aWaitLastsAtLeastWhatWasAskedAndAnInterruptEndsIt() {
        long t0 = System.nanoTime();
        Demand.sleepMicros(3_000);
        assertTrue(System.nanoTime() - t0 >= 3_000_000L);
        Thread.currentThread().interrupt();
        t0 = System.nanoTime();
        Demand.sleepMicros(5_000_000);                 // five seconds, unless the interrupt ends it
        assertTrue(Thread.interrupted(), "the interrupt stays set");
        assertTrue(System.nanoTime() - t0 < 5_000_000_000L, "ended by the interrupt");
    }
}
