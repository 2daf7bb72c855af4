package org.soaptestbed.serialization;

import java.util.HashMap;
import java.util.Map;
import org.apache.axis2.Constants;
import org.apache.axis2.client.Options;
import org.apache.axis2.context.ConfigurationContext;
import org.apache.axis2.kernel.http.HTTPConstants;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.soaptestbed.contract.ClientConfig;
import org.soaptestbed.contract.v1.TestbedServiceStub;

/**
 * The generated stubs the commands call with: one Axis2 client configuration (the
 * contract's axis2-client.xml: HTTP/1.1, chunked requests) and one pooled HTTP client
 * for the whole process, one stub per endpoint and MTOM setting.
 */
final class Clients implements AutoCloseable {

    private ConfigurationContext axis;
    private CloseableHttpClient http;
    private final Map<String, TestbedServiceStub> stubs = new HashMap<>();

    TestbedServiceStub stub(String endpoint) throws Exception {
        return stub(endpoint, false);
    }

    TestbedServiceStub stub(String endpoint, boolean mtom) throws Exception {
        String key = endpoint + (mtom ? " mtom" : "");
        TestbedServiceStub s = stubs.get(key);
        if (s == null) {
            if (axis == null) {
                axis = ClientConfig.create();
                http = HttpClients.custom()
                        .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create().build())
                        .build();
            }
            s = new TestbedServiceStub(axis, endpoint);
            Options o = s._getServiceClient().getOptions();
            o.setProperty(HTTPConstants.CACHED_HTTP_CLIENT, http);
            o.setTimeOutInMilliSeconds(300_000);
            if (mtom) {
                o.setProperty(Constants.Configuration.ENABLE_MTOM, Constants.VALUE_TRUE);
            }
            stubs.put(key, s);
        }
        return s;
    }

    @Override
    public void close() throws Exception {
        for (TestbedServiceStub s : stubs.values()) {
            s._getServiceClient().cleanup();
        }
        if (http != null) {
            http.close();
        }
    }
}
