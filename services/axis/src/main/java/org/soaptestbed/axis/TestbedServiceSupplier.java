package org.soaptestbed.axis;

import org.apache.axis2.AxisFault;
import org.apache.axis2.ServiceObjectSupplier;
import org.apache.axis2.description.AxisService;

/**
 * Hands Axis2 the one {@link TestbedService} that {@link AxisRuntime} built from the
 * tier's settings (named by services.xml's ServiceObjectSupplier parameter), so the service
 * gets its demand knobs without reading the environment a second time.
 */
public final class TestbedServiceSupplier implements ServiceObjectSupplier {

    /** The AxisService parameter holding the instance. */
    static final String INSTANCE = "testbed.serviceInstance";

    @Override
    public Object getServiceObject(AxisService service) throws AxisFault {
        Object instance = service.getParameterValue(INSTANCE);
        if (instance == null) {
            throw new AxisFault("TestbedService was deployed without its instance (parameter "
                    + INSTANCE + "); start it through AxisMain");
        }
        return instance;
    }
}
