package org.soaptestbed.axis;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.axis2.AxisFault;
import org.apache.axis2.Constants;
import org.apache.axis2.context.ConfigurationContext;
import org.apache.axis2.context.ConfigurationContextFactory;
import org.apache.axis2.description.AxisService;
import org.apache.axis2.engine.AxisConfiguration;

/**
 * The Axis2 engine of the tier, built from the repository folder that the build writes to
 * target/repository (axis2.xml, services/TestbedService/META-INF/{services.xml, WSDL}),
 * plus what the repository cannot say: the XML limits of the text/xml and the MTOM
 * (multipart/related) builders, and the service instance.
 */
final class AxisRuntime {

    static final String SERVICE_NAME = "TestbedService";

    final ConfigurationContext context;
    final AxisService service;

    private AxisRuntime(ConfigurationContext context, AxisService service) {
        this.context = context;
        this.service = service;
    }

    static AxisRuntime create(Path repository, AxisSettings settings, TestbedService instance)
            throws AxisFault {
        Path axis2xml = repository.resolve("axis2.xml");
        if (!Files.isRegularFile(axis2xml)) {
            throw new IllegalStateException("no Axis2 repository at " + repository
                    + " (axis2.xml missing); build it: mvn -q -B package");
        }
        ConfigurationContext context = ConfigurationContextFactory
                .createConfigurationContextFromFileSystem(repository.toString(), axis2xml.toString());
        context.setProperty(Constants.CONTAINER_MANAGED, Constants.VALUE_TRUE);
        AxisConfiguration config = context.getAxisConfiguration();
        XmlLimits limits = new XmlLimits(settings.maxXmlDepth(), settings.maxXmlOccurs());
        config.addMessageBuilder("text/xml", new LimitedSoapBuilder(limits));
        config.addMessageBuilder("multipart/related", new LimitedMtomBuilder(limits));  // MTOM/XOP
        AxisService service = config.getService(SERVICE_NAME);
        if (service == null) {
            throw new IllegalStateException(SERVICE_NAME + " did not deploy from " + repository
                    + "/services: " + config.getFaultyServices());
        }
        service.addParameter(TestbedServiceSupplier.INSTANCE, instance);
        return new AxisRuntime(context, service);
    }
}
