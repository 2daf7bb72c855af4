package org.soaptestbed.clones;

import java.io.StringReader;
import java.net.URI;
import java.rmi.RemoteException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.xml.namespace.QName;
import org.apache.axiom.om.OMElement;
import org.apache.axiom.om.OMXMLBuilderFactory;
import org.apache.axis2.AxisFault;
import org.apache.axis2.client.ServiceClient;
import org.soaptestbed.contract.v1.TestbedServiceStub;

/**
 * One SOAP client of one backend, built from the WSDL the service served ({@link ClientFactory}):
 * for the contract's services, the generated ADB stub running on a ServiceClient made from that
 * WSDL; for the user's own service, that ServiceClient alone, sending the expanded template.
 * Not thread-safe by itself: the lifecycle decides who may use it when.
 */
public final class SoapClient implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(SoapClient.class.getName());

    private final Backend backend;
    private final URI endpoint;
    private final TestbedServiceStub stub;
    private final ServiceClient serviceClient;
    private final QName ownOperation;
    private final HttpTransport ownTransport;
    private final Stats stats;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * @param stub         the contract's stub (its ServiceClient is serviceClient), or null for own
     * @param ownOperation the own service's operation as the WSDL names it, or null
     * @param ownTransport the transport to close with this client (request mode), or null
     *                     when the transport is shared and outlives the client
     */
    SoapClient(Backend backend, URI endpoint, TestbedServiceStub stub, ServiceClient serviceClient,
               QName ownOperation, HttpTransport ownTransport, Stats stats) {
        this.backend = backend;
        this.endpoint = endpoint;
        this.stub = stub;
        this.serviceClient = serviceClient;
        this.ownOperation = ownOperation;
        this.ownTransport = ownTransport;
        this.stats = stats;
        stats.clientOpened(backend);
    }

    public Backend backend() {
        return backend;
    }

    /** The address calls go to. */
    public URI endpoint() {
        return endpoint;
    }

    /** The contract's generated stub (axis, gsoap). */
    TestbedServiceStub stub() {
        if (stub == null) {
            throw new IllegalStateException(backend.label() + ": a client of the own service has no contract stub");
        }
        return stub;
    }

    /** One SOAP exchange; the response bean, not yet checked. */
    public Object send(SoapCall call) throws RemoteException {
        return call.send(this);
    }

    /**
     * Sends {@code request} (XML text: the Body's content) as the own service's operation and
     * returns the Body's content of the answer, read whole; a SOAP Fault is thrown (AxisFault).
     */
    OMElement sendOwn(String operation, String request) throws RemoteException {
        if (ownOperation == null || !ownOperation.getLocalPart().equals(operation)) {
            throw new IllegalStateException(backend.label() + ": this client was not built for " + operation);
        }
        OMElement body = OMXMLBuilderFactory.createOMBuilder(new StringReader(request)).getDocumentElement();
        try {
            OMElement answer = serviceClient.sendReceive(ownOperation, body);
            if (answer != null) {
                answer.build();     // read the whole answer before the connection is given back
            }
            return answer;
        } finally {
            serviceClient.cleanupTransport();
        }
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
            serviceClient.cleanupTransport();
            if (stub != null) {
                stub.cleanup();
            } else {
                serviceClient.cleanup();
            }
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
