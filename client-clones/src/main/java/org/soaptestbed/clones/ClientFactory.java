package org.soaptestbed.clones;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;
import javax.wsdl.Definition;
import javax.wsdl.WSDLException;
import javax.wsdl.xml.WSDLReader;
import javax.xml.XMLConstants;
import javax.xml.namespace.QName;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.apache.axis2.AxisFault;
import org.apache.axis2.addressing.EndpointReference;
import org.apache.axis2.client.Options;
import org.apache.axis2.client.ServiceClient;
import org.apache.axis2.context.ConfigurationContext;
import org.apache.axis2.description.AxisOperation;
import org.apache.axis2.description.AxisService;
import org.apache.axis2.kernel.http.HTTPConstants;
import org.apache.axis2.wsdl.WSDLUtil;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.soaptestbed.contract.Contract;
import org.soaptestbed.contract.v1.TestbedServiceStub;
import org.w3c.dom.Document;
import org.xml.sax.SAXException;

/**
 * Builds a {@link SoapClient} the way a WSDL-driven client is built — the expensive step the
 * client lifecycles exist to avoid or repeat:
 *
 * <ol>
 * <li>fetch {@code <endpoint>?wsdl} from the service (through HAProxy);</li>
 * <li>parse it: DOM, WSDL4J, then Axis2's WSDL11ToAxisServiceBuilder turns the
 *     {@code TestbedService}/{@code TestbedPort} port into an AxisService (operations,
 *     messages, schema) and reads its soap:address;</li>
 * <li>check the port offers every operation of the contract;</li>
 * <li>create the generated ADB stub on it: the stub's ServiceClient is replaced by a
 *     ServiceClient on the WSDL's AxisService, sending to the soap:address, on the given
 *     HTTP transport, with SOAP_TIMEOUT_MS timeouts.</li>
 * </ol>
 * Each successful fetch+parse counts one {@code wsdl_load} in {@link Stats}.
 */
public final class ClientFactory {

    /** The client could not be built: the service is unreachable or its WSDL unusable. */
    public static final class BuildFailed extends Exception {
        private static final long serialVersionUID = 1L;

        BuildFailed(String message, Throwable cause) {
            super(message, cause);
        }
    }

    static final QName SERVICE = new QName(Contract.NAMESPACE, "TestbedService");
    static final String PORT = "TestbedPort";
    private static final int MAX_WSDL_BYTES = 1 << 20;
    private static final Logger LOG = Logger.getLogger(ClientFactory.class.getName());
    /** Makes each client's service name unique in the shared AxisConfiguration. */
    private static final AtomicLong SEQUENCE = new AtomicLong();

    private final ConfigurationContext axis2;
    private final CloneConfig config;
    private final Stats stats;
    /** Backends whose differing soap:address was reported already (once, not per client). */
    private final Set<Backend> warnedAddress = ConcurrentHashMap.newKeySet();

    public ClientFactory(ConfigurationContext axis2, CloneConfig config, Stats stats) {
        this.axis2 = axis2;
        this.config = config;
        this.stats = stats;
    }

    /**
     * @param transport     the HTTP transport the WSDL is fetched and the calls are sent on
     * @param ownsTransport true: closing the client closes the transport (request mode)
     */
    public SoapClient build(Backend backend, HttpTransport transport, boolean ownsTransport) throws BuildFailed {
        if (backend == Backend.OWN) {
            return buildOwn(transport, ownsTransport);
        }
        URI wsdlUri = URI.create(config.endpoint(backend) + "?wsdl");
        long t0 = System.nanoTime();
        AxisService described;
        String address;
        String soapVersion;
        try {
            Definition wsdl = parse(fetch(transport, wsdlUri), wsdlUri);
            Options fromWsdl = new Options();
            described = AxisService.createClientSideAxisService(wsdl, SERVICE, PORT, fromWsdl);
            for (String op : Contract.OPERATIONS) {
                if (described.getOperation(new QName(Contract.NAMESPACE, op)) == null) {
                    throw new BuildFailed("the WSDL at " + wsdlUri + " has no operation " + op, null);
                }
            }
            if (fromWsdl.getTo() == null || fromWsdl.getTo().getAddress() == null) {
                throw new BuildFailed("the WSDL at " + wsdlUri + " gives no soap:address for " + PORT, null);
            }
            address = fromWsdl.getTo().getAddress();
            soapVersion = fromWsdl.getSoapVersionURI();
        } catch (BuildFailed e) {
            stats.wsdlFailed(backend);
            throw e;
        } catch (IOException | SAXException | ParserConfigurationException | WSDLException e) {
            stats.wsdlFailed(backend);
            throw new BuildFailed("cannot load the WSDL " + wsdlUri + ": " + e, e);
        }
        stats.wsdlLoaded(backend, System.nanoTime() - t0);
        if (!address.equals(config.endpoint(backend).toString()) && warnedAddress.add(backend)) {
            LOG.warning(() -> backend.label() + ": the WSDL's soap:address " + address + " differs from "
                    + config.endpoint(backend) + ", where it was fetched; calls go to the soap:address");
        }
        return onStub(backend, described, address, soapVersion, transport, ownsTransport);
    }

    private SoapClient onStub(Backend backend, AxisService described, String address, String soapVersion,
                              HttpTransport transport, boolean ownsTransport) throws BuildFailed {
        described.setName(SERVICE.getLocalPart() + "-" + backend.label() + "-" + SEQUENCE.incrementAndGet());
        ServiceClient fromWsdl = null;
        try {
            fromWsdl = new ServiceClient(axis2, described);
            TestbedServiceStub stub = new TestbedServiceStub(axis2, address);
            stub._getServiceClient().cleanup();   // the description compiled into the stub...
            stub._setServiceClient(fromWsdl);     // ...gives way to the one read from the WSDL
            sendingTo(fromWsdl, address, soapVersion, transport);
            return new SoapClient(backend, URI.create(address), stub, fromWsdl, null,
                    ownsTransport ? transport : null, stats);
        } catch (AxisFault | RuntimeException e) {
            discard(fromWsdl);
            throw new BuildFailed("cannot create the " + backend.label() + " stub: " + e, e);
        }
    }

    /**
     * The user's own service: the same steps on OWN_WSDL — fetch, parse, the AxisService of the
     * first SOAP port whose binding has OWN_OPERATION — and a ServiceClient on it that sends to
     * OWN_ENDPOINT (through HAProxy), not to the soap:address the WSDL gives. No generated code:
     * the request is the expanded template ({@link SoapCall#own}).
     */
    private SoapClient buildOwn(HttpTransport transport, boolean ownsTransport) throws BuildFailed {
        OwnService own = config.own();
        if (own == null) {
            throw new BuildFailed("this clone has no service of its own (OWN_* unset)", null);
        }
        URI wsdlUri = own.wsdl();
        long t0 = System.nanoTime();
        AxisService described;
        QName operation;
        String soapVersion;
        try {
            Definition wsdl = parse(fetch(transport, wsdlUri), wsdlUri);
            if (!wsdl.getImports().isEmpty()) {
                throw new BuildFailed("the WSDL at " + wsdlUri + " imports other WSDL documents ("
                        + wsdl.getImports().keySet() + "); the client tier reads a WSDL of one document", null);
            }
            Map.Entry<QName, String> port = soapPort(wsdl, own.operation(), wsdlUri);
            Options fromWsdl = new Options();
            described = AxisService.createClientSideAxisService(wsdl, port.getKey(), port.getValue(), fromWsdl);
            operation = null;
            for (Iterator<AxisOperation> it = described.getOperations(); it.hasNext(); ) {
                AxisOperation op = it.next();
                if (op.getName().getLocalPart().equals(own.operation())) {
                    operation = op.getName();
                }
            }
            if (operation == null) {
                throw new BuildFailed("the WSDL at " + wsdlUri + " has no operation " + own.operation(), null);
            }
            soapVersion = fromWsdl.getSoapVersionURI();
        } catch (BuildFailed e) {
            stats.wsdlFailed(Backend.OWN);
            throw e;
        } catch (IOException | SAXException | ParserConfigurationException | WSDLException | RuntimeException e) {
            stats.wsdlFailed(Backend.OWN);
            throw new BuildFailed("cannot load the WSDL " + wsdlUri + ": " + e, e);
        }
        stats.wsdlLoaded(Backend.OWN, System.nanoTime() - t0);
        described.setName("own-" + SEQUENCE.incrementAndGet());
        ServiceClient client = null;
        try {
            client = new ServiceClient(axis2, described);
            sendingTo(client, own.endpoint().toString(), soapVersion, transport);
            return new SoapClient(Backend.OWN, own.endpoint(), null, client, operation,
                    ownsTransport ? transport : null, stats);
        } catch (AxisFault | RuntimeException e) {
            discard(client);
            throw new BuildFailed("cannot create a client of " + own.operation() + ": " + e, e);
        }
    }

    /** Points a client read from a WSDL at address, on the given transport, with SOAP_TIMEOUT_MS timeouts. */
    private void sendingTo(ServiceClient client, String address, String soapVersion, HttpTransport transport) {
        Options o = client.getOptions();
        o.setTo(new EndpointReference(address));
        if (soapVersion != null) {
            o.setSoapVersionURI(soapVersion);
        }
        int timeout = config.soapTimeoutMs();
        o.setTimeOutInMilliSeconds(timeout);
        o.setProperty(HTTPConstants.CONNECTION_TIMEOUT, timeout);
        o.setProperty(HTTPConstants.SO_TIMEOUT, timeout);
        o.setProperty(HTTPConstants.CACHED_HTTP_CLIENT, transport.client());
    }

    /** Releases a client whose build failed (null: none was made yet). */
    private static void discard(ServiceClient client) {
        if (client != null) {
            try {
                client.cleanup();
            } catch (AxisFault ignored) {
                // the build failed already; that is what is reported
            }
        }
    }

    /** (service, port) of the first port with a SOAP 1.1 address whose binding has the operation, else SOAP 1.2. */
    private static Map.Entry<QName, String> soapPort(Definition wsdl, String operation, URI wsdlUri) throws BuildFailed {
        Map.Entry<QName, String> soap12 = null;
        for (Object s : wsdl.getAllServices().values()) {
            javax.wsdl.Service service = (javax.wsdl.Service) s;
            for (Object p : service.getPorts().values()) {
                javax.wsdl.Port port = (javax.wsdl.Port) p;
                if (port.getBinding() == null || port.getBinding().getBindingOperation(operation, null, null) == null) {
                    continue;
                }
                for (Object ext : port.getExtensibilityElements()) {
                    if (ext instanceof javax.wsdl.extensions.soap.SOAPAddress) {
                        return Map.entry(service.getQName(), port.getName());
                    }
                    if (ext instanceof javax.wsdl.extensions.soap12.SOAP12Address && soap12 == null) {
                        soap12 = Map.entry(service.getQName(), port.getName());
                    }
                }
            }
        }
        if (soap12 == null) {
            throw new BuildFailed("the WSDL at " + wsdlUri + " has no SOAP port whose binding has the operation "
                    + operation, null);
        }
        return soap12;
    }

    private static byte[] fetch(HttpTransport transport, URI wsdlUri) throws IOException {
        return transport.client().execute(new HttpGet(wsdlUri), response -> {
            HttpEntity entity = response.getEntity();
            if (response.getCode() != 200 || entity == null) {
                EntityUtils.consume(entity);
                throw new IOException("GET " + wsdlUri + " answered HTTP " + response.getCode());
            }
            try (InputStream in = entity.getContent()) {
                byte[] body = in.readNBytes(MAX_WSDL_BYTES + 1);
                if (body.length > MAX_WSDL_BYTES) {
                    throw new IOException("GET " + wsdlUri + " answered more than " + MAX_WSDL_BYTES + " bytes");
                }
                return body;
            }
        });
    }

    private static Definition parse(byte[] wsdl, URI wsdlUri)
            throws ParserConfigurationException, SAXException, IOException, WSDLException {
        DocumentBuilderFactory dbf = DocumentBuilderFactory.newInstance();
        dbf.setNamespaceAware(true);
        dbf.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
        dbf.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        Document doc = dbf.newDocumentBuilder().parse(new ByteArrayInputStream(wsdl));
        WSDLReader reader = WSDLUtil.newWSDLReaderWithPopulatedExtensionRegistry();
        reader.setFeature("javax.wsdl.verbose", false);
        reader.setFeature("javax.wsdl.importDocuments", false);   // the contract is one file
        return reader.readWSDL(wsdlUri.toString(), doc);
    }
}
