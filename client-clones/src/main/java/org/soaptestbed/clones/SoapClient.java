package org.soaptestbed.clones;

import java.net.URI;
import java.rmi.RemoteException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.axis2.AxisFault;
import org.soaptestbed.contract.v1.TestbedServiceStub;

/**
 * One SOAP client of one backend: the generated ADB stub running on a ServiceClient built
 * from the WSDL the service served ({@link ClientFactory}), and the HTTP transport it
 * sends on. Not thread-safe by itself: the lifecycle decides who may use it when.
 */
public final class SoapClient implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(SoapClient.class.getName());

    private final Backend backend;
    private final URI endpoint;
    private final TestbedServiceStub stub;
    private final HttpTransport ownTransport;
    private final Stats stats;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * @param ownTransport the transport to close with this client (request mode), or null
     *                     when the transport is shared and outlives the client
     */
    SoapClient(Backend backend, URI endpoint, TestbedServiceStub stub, HttpTransport ownTransport, Stats stats) {
        this.backend = backend;
        this.endpoint = endpoint;
        this.stub = stub;
        this.ownTransport = ownTransport;
        this.stats = stats;
        stats.clientOpened(backend);
    }

    public Backend backend() {
        return backend;
    }

    /** The address calls go to: the soap:address of the WSDL. */
    public URI endpoint() {
        return endpoint;
    }

    /** One SOAP exchange; the response bean, not yet checked. */
    public Object send(SoapCall call) throws RemoteException {
        return call.send(stub);
    }

    /**
     * Releases everything the client holds: the last call's transport resources, its
     * service description in the shared AxisConfiguration, and its own connections.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            stub._getServiceClient().cleanupTransport();
            stub.cleanup();
        } catch (AxisFault e) {
            LOG.log(Level.FINE, "cleanup of a " + backend.label() + " client", e);
        } finally {
            if (ownTransport != null) {
                ownTransport.close();
            }
            stats.clientClosed(backend);
        }
    }
}
