package org.soaptestbed.clones;

import java.rmi.RemoteException;
import java.util.concurrent.TimeUnit;

/**
 * The classic singleton SOAP client (docs/method.md, "Clone scaling and the client
 * lifecycles"), reproduced on purpose: one
 * instance per backend, built once because fetching and parsing the WSDL is expensive,
 * and one {@code synchronized} method, {@link #invoke}, that every call of the tier to
 * that backend passes through — one SOAP exchange at a time, however many request threads
 * the tier has.
 *
 * <p>Under load the tier's throughput is capped at 1 / (duration of one exchange) per
 * backend while its CPU stays low; a thread dump taken at the plateau shows the request
 * threads {@code BLOCKED} "waiting to lock" an instance of this class in {@code invoke}.
 *
 * <p>If the service cannot be reached when the tier starts, the client is built by the
 * first call instead (under the same lock), and again by later calls until it succeeds.
 */
public final class SingletonSoapClient {

    private final Backend backend;
    private final ClientFactory factory;
    private final HttpTransport transport;
    private final int timeoutMs;
    private volatile SoapClient client;   // written under this monitor; read freely by /status

    SingletonSoapClient(Backend backend, ClientFactory factory, HttpTransport transport, int timeoutMs) {
        this.backend = backend;
        this.factory = factory;
        this.transport = transport;
        this.timeoutMs = timeoutMs;
    }

    /** Builds the client from the WSDL unless it is built already (start-up). */
    public synchronized void init() throws ClientFactory.BuildFailed {
        if (client == null) {
            client = factory.build(backend, transport, false);
        }
    }

    /**
     * The one way to the service: one caller at a time. A caller whose /invoke deadline
     * passed while it waited for this monitor is answered without calling (504), so the
     * queue in front of the lock drains when the service is slow, as a timed-out caller
     * would have given up.
     */
    public synchronized Object invoke(SoapCall call, long deadlineNanos)
            throws Failure, RemoteException, ClientFactory.BuildFailed {
        long late = System.nanoTime() - deadlineNanos;
        if (late > 0) {
            throw Failure.queued("waited more than SOAP_TIMEOUT_MS=" + timeoutMs + " for the singleton "
                    + backend.label() + " client (" + TimeUnit.NANOSECONDS.toMillis(late) + " ms late)");
        }
        ClientTime.obtained();               // the monitor is held from here (docs/predict.md)
        try {
            if (client == null) {
                client = factory.build(backend, transport, false);
            }
            return client.send(call);
        } finally {
            ClientTime.released();           // ... to here
        }
    }

    /** Without the lock: /status must answer while calls queue. */
    public boolean built() {
        return client != null;
    }

    synchronized void close() {
        if (client != null) {
            client.close();
            client = null;
        }
    }
}
