package org.soaptestbed.contract;

import org.apache.axis2.AxisFault;
import org.apache.axis2.context.ConfigurationContext;
import org.apache.axis2.context.ConfigurationContextFactory;

/**
 * The Axis2 configuration context for clients of the contract: pass it to
 * {@code new TestbedServiceStub(ClientConfig.create(), endpoint)}. One context can be
 * shared by any number of stubs and threads.
 */
public final class ClientConfig {

    /** Classpath resource of the client's axis2.xml. */
    public static final String AXIS2_XML = "org/soaptestbed/contract/axis2-client.xml";

    private ClientConfig() {
    }

    public static ConfigurationContext create() throws AxisFault {
        try {
            return ConfigurationContextFactory.createBasicConfigurationContext(AXIS2_XML);
        } catch (AxisFault e) {
            throw e;
        } catch (Exception e) {
            throw AxisFault.makeFault(e);
        }
    }
}
