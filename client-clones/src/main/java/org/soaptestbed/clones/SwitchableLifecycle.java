package org.soaptestbed.clones;

import java.rmi.RemoteException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import javax.management.ObjectName;
import org.soaptestbed.common.Jmx;

/**
 * The tier's {@link ClientLifecycle}, which {@code POST /lifecycle} may replace while the JVM
 * runs ({@link LifecycleServlet}). A restart to change CLIENT_MODE throws away every method the
 * JIT compiled — on a busy 2-core host a per-request clone then compiles its build path for
 * minutes — so the runner switches the running clones instead and primes the new lifecycle until
 * it is measurably warm.
 *
 * <p>A call reads the current lifecycle once (a volatile read: nothing else on the call path).
 * The replaced lifecycle is closed once the calls that may still hold one of its clients are over:
 * after SOAP_TIMEOUT_MS plus a second, the longest an /invoke may wait and call.
 */
final class SwitchableLifecycle implements ClientLifecycle {
    private static final Logger LOG = Logger.getLogger(SwitchableLifecycle.class.getName());
    private static final long GRACE_MS = 1000;

    /** One lifecycle with the configuration it was made for and its JMX names. */
    private record Active(CloneConfig config, ClientLifecycle lifecycle, List<ObjectName> beans) {
    }

    private final ClientFactory factory;
    private final Stats stats;
    private final ScheduledExecutorService retire = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "lifecycle-retire");
        t.setDaemon(true);
        return t;
    });
    private final List<ClientLifecycle> retiring = new ArrayList<>();
    private volatile Active active;

    SwitchableLifecycle(CloneConfig config, ClientFactory factory, Stats stats) {
        this.factory = factory;
        this.stats = stats;
        this.active = make(config);
    }

    private Active make(CloneConfig config) {
        return new Active(config, ClientLifecycle.create(config, factory), ClientTimeBean.register(stats, config.mode()));
    }

    /** The configuration the current lifecycle was made for. */
    CloneConfig config() {
        return active.config();
    }

    ClientMode mode() {
        return active.config().mode();
    }

    /**
     * Replaces the lifecycle by one of {@code mode} (with {@code poolSize} clients for a pool),
     * built and warmed up before calls reach it; the same mode and size again changes nothing.
     * Returns {"mode", "pool_size", "previous": {...}, "switched", "warm_up_ms"}.
     */
    synchronized Map<String, Object> switchTo(ClientMode mode, int poolSize) {
        Active old = active;
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("mode", mode.label());
        out.put("pool_size", poolSize);
        out.put("previous", Map.of("mode", old.config().mode().label(), "pool_size", old.config().poolSize()));
        boolean same = old.config().mode() == mode && (mode != ClientMode.POOL || old.config().poolSize() == poolSize);
        if (same) {
            out.put("switched", false);
            return out;
        }
        long t0 = System.nanoTime();
        for (ObjectName n : old.beans()) {
            Jmx.unregister(n);       // the next registers ClientTime under the new mode
        }
        Active next = make(old.config().withLifecycle(mode, poolSize));
        next.lifecycle().warmUp();
        active = next;
        long warmMs = (System.nanoTime() - t0) / 1_000_000;
        retiring.add(old.lifecycle());
        retire.schedule(() -> closeRetired(old.lifecycle()), old.config().soapTimeoutMs() + GRACE_MS,
                TimeUnit.MILLISECONDS);
        LOG.info(() -> "clone: client lifecycle " + old.config().mode().label() + " -> " + mode.label()
                + (mode == ClientMode.POOL ? " (" + poolSize + " clients)" : "") + ", ready in " + warmMs + " ms");
        out.put("switched", true);
        out.put("warm_up_ms", warmMs);
        return out;
    }

    private synchronized void closeRetired(ClientLifecycle old) {
        if (retiring.remove(old)) {
            old.close();
        }
    }

    @Override
    public Object call(Backend backend, SoapCall call, long deadlineNanos)
            throws Failure, RemoteException, ClientFactory.BuildFailed {
        return active.lifecycle().call(backend, call, deadlineNanos);
    }

    @Override
    public void warmUp() {
        active.lifecycle().warmUp();
    }

    @Override
    public Map<String, Object> describe(Backend backend) {
        return active.lifecycle().describe(backend);
    }

    @Override
    public synchronized void close() {
        retire.shutdownNow();
        for (ClientLifecycle old : retiring) {
            old.close();
        }
        retiring.clear();
        active.lifecycle().close();
    }
}
