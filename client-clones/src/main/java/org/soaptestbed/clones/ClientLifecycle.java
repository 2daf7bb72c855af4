package org.soaptestbed.clones;

import java.rmi.RemoteException;
import java.util.Map;

/**
 * How the tier's SOAP clients are created, shared and released: one implementation per
 * {@link ClientMode}. Every /invoke goes through {@link #call}.
 */
public interface ClientLifecycle extends AutoCloseable {

    /**
     * Sends {@code call} to {@code backend} with a client this lifecycle provides.
     *
     * @param deadlineNanos {@link System#nanoTime()} after which the /invoke has waited
     *                      SOAP_TIMEOUT_MS and should not start a call any more
     * @return the response bean, not yet checked
     * @throws Failure                    the tier itself could not provide a client in time
     * @throws RemoteException            the SOAP exchange failed (fault, transport, timeout)
     * @throws ClientFactory.BuildFailed  a client had to be built and could not be
     */
    Object call(Backend backend, SoapCall call, long deadlineNanos)
            throws Failure, RemoteException, ClientFactory.BuildFailed;

    /** Builds what this lifecycle builds at start-up; logs, never throws. */
    void warmUp();

    /** Lifecycle-specific state of one backend for /status. */
    Map<String, Object> describe(Backend backend);

    /** Releases every client and connection. */
    @Override
    void close();

    /** The lifecycle {@code config} asks for. */
    static ClientLifecycle create(CloneConfig config, ClientFactory factory) {
        switch (config.mode()) {
            case SINGLETON:
                return new SingletonLifecycle(config, factory);
            case REQUEST:
                return new PerRequestLifecycle(config, factory);
            case POOL:
                return new PoolLifecycle(config, factory);
            default:
                throw new IllegalStateException("unhandled mode " + config.mode());
        }
    }
}
