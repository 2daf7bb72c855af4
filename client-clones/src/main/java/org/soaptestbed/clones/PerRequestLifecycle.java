package org.soaptestbed.clones;

import java.rmi.RemoteException;
import java.util.Map;

/**
 * CLIENT_MODE=request: every call gets a fresh client — its own HTTP transport (a new
 * connection), the WSDL fetched and parsed, the stub created — used once, then closed:
 * the stub's service description leaves the AxisConfiguration and the connection is
 * closed, so nothing accumulates however many calls are made.
 *
 * <p>The Axis2 runtime itself (ConfigurationContext, i.e. axis2.xml and the transports'
 * definitions) is one per process, as in any application using Axis2: it is the engine,
 * not a client.
 */
final class PerRequestLifecycle implements ClientLifecycle {

    private final CloneConfig config;
    private final ClientFactory factory;

    PerRequestLifecycle(CloneConfig config, ClientFactory factory) {
        this.config = config;
        this.factory = factory;
    }

    @Override
    public Object call(Backend backend, SoapCall call, long deadlineNanos)
            throws RemoteException, ClientFactory.BuildFailed {
        ClientTime.obtained();               // no wait: the call's own client, built now
        HttpTransport transport = new HttpTransport(1, config.soapTimeoutMs(), false);
        SoapClient client;
        try {
            client = factory.build(backend, transport, true);
        } catch (ClientFactory.BuildFailed | RuntimeException e) {
            transport.close();
            throw e;
        }
        try {
            return client.send(call);
        } finally {
            client.close();   // closes the transport too
        }
    }

    @Override
    public void warmUp() {
        // nothing is built ahead of a call in this mode
    }

    @Override
    public Map<String, Object> describe(Backend backend) {
        return Map.of();
    }

    @Override
    public void close() {
        // every client was closed by its own call
    }
}
