package org.soaptestbed.clones;

import java.rmi.RemoteException;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.logging.Logger;

/**
 * CLIENT_MODE=singleton: one {@link SingletonSoapClient} per backend, built from the WSDL at
 * start-up (or by the first call if the service is not up yet), on one long-lived HTTP
 * transport whose keep-alive connection it reuses.
 */
final class SingletonLifecycle implements ClientLifecycle {

    private static final Logger LOG = Logger.getLogger(SingletonLifecycle.class.getName());

    private final Map<Backend, SingletonSoapClient> clients = new EnumMap<>(Backend.class);
    private final Map<Backend, HttpTransport> transports = new EnumMap<>(Backend.class);

    SingletonLifecycle(CloneConfig config, ClientFactory factory) {
        for (Backend b : config.backends()) {
            // one call at a time, plus the WSDL fetch of a lazy build: two connections at most
            HttpTransport t = new HttpTransport(2, config.soapTimeoutMs(), true);
            transports.put(b, t);
            clients.put(b, new SingletonSoapClient(b, factory, t, config.soapTimeoutMs()));
        }
    }

    @Override
    public Object call(Backend backend, SoapCall call, long deadlineNanos)
            throws Failure, RemoteException, ClientFactory.BuildFailed {
        return clients.get(backend).invoke(call, deadlineNanos);
    }

    @Override
    public void warmUp() {
        for (Backend b : clients.keySet()) {
            long t0 = System.nanoTime();
            try {
                clients.get(b).init();
                LOG.info(() -> b.label() + ": singleton client built from the WSDL in "
                        + (System.nanoTime() - t0) / 1_000_000 + " ms");
            } catch (ClientFactory.BuildFailed e) {
                LOG.warning(() -> b.label() + ": no client at start-up (" + e.getMessage()
                        + "); the first call will build it");
            }
        }
    }

    @Override
    public Map<String, Object> describe(Backend backend) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("client_built", clients.get(backend).built());
        m.put("connections", transports.get(backend).openConnections());
        return m;
    }

    @Override
    public void close() {
        clients.values().forEach(SingletonSoapClient::close);
        transports.values().forEach(HttpTransport::close);
    }
}
