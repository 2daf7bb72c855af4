package org.soaptestbed.clones;

import java.rmi.RemoteException;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.logging.Logger;

/**
 * CLIENT_MODE=pool: per backend, a {@link BoundedPool} of CLIENT_POOL_SIZE clients built
 * from the WSDL at start-up, all sending on one HTTP transport with as many keep-alive
 * connections. A call borrows a client for its exchange; when none is free within
 * SOAP_TIMEOUT_MS it is answered 503.
 */
final class PoolLifecycle implements ClientLifecycle {

    private static final Logger LOG = Logger.getLogger(PoolLifecycle.class.getName());

    private final CloneConfig config;
    private final Map<Backend, BoundedPool<SoapClient, ClientFactory.BuildFailed>> pools = new EnumMap<>(Backend.class);
    private final Map<Backend, HttpTransport> transports = new EnumMap<>(Backend.class);

    PoolLifecycle(CloneConfig config, ClientFactory factory) {
        this.config = config;
        for (Backend b : config.backends()) {
            // one connection per client, one more for a WSDL fetch while all are busy
            HttpTransport t = new HttpTransport(config.poolSize() + 1, config.soapTimeoutMs(), true);
            transports.put(b, t);
            pools.put(b, new BoundedPool<>(config.poolSize(), () -> factory.build(b, t, false), SoapClient::close));
        }
    }

    @Override
    public Object call(Backend backend, SoapCall call, long deadlineNanos)
            throws Failure, RemoteException, ClientFactory.BuildFailed {
        BoundedPool<SoapClient, ClientFactory.BuildFailed> pool = pools.get(backend);
        SoapClient client;
        try {
            client = pool.borrow(config.soapTimeoutMs());
        } catch (BoundedPool.Exhausted e) {
            throw Failure.busy("no pooled " + backend.label() + " client free within SOAP_TIMEOUT_MS="
                    + config.soapTimeoutMs() + " (CLIENT_POOL_SIZE=" + config.poolSize() + "): " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw Failure.busy("interrupted while waiting for a pooled " + backend.label() + " client");
        }
        ClientTime.obtained();
        try {
            return client.send(call);
        } finally {
            ClientTime.released();
            pool.giveBack(client);   // a fault or transport error leaves the stub usable
        }
    }

    @Override
    public void warmUp() {
        for (Backend b : config.backends()) {
            long t0 = System.nanoTime();
            BoundedPool<SoapClient, ClientFactory.BuildFailed> pool = pools.get(b);
            try {
                pool.fill(config.soapTimeoutMs());
                LOG.info(() -> b.label() + ": " + pool.created() + " pooled clients built from the WSDL in "
                        + (System.nanoTime() - t0) / 1_000_000 + " ms");
            } catch (ClientFactory.BuildFailed | BoundedPool.Exhausted e) {
                LOG.warning(() -> b.label() + ": " + pool.created() + " of " + pool.capacity()
                        + " pooled clients built at start-up (" + e.getMessage() + "); calls will build the rest");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override
    public Map<String, Object> describe(Backend backend) {
        BoundedPool<SoapClient, ClientFactory.BuildFailed> pool = pools.get(backend);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("pool_clients", pool.created());
        m.put("pool_idle", pool.idle());
        m.put("pool_in_use", pool.inUse());
        m.put("connections", transports.get(backend).openConnections());
        return m;
    }

    @Override
    public void close() {
        pools.values().forEach(BoundedPool::close);
        transports.values().forEach(HttpTransport::close);
    }
}
