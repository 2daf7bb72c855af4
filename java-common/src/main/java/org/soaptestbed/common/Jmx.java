package org.soaptestbed.common;

import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The tiers' own MXBeans, under the domain {@value #DOMAIN}: what the Prometheus JMX exporter
 * agent (java-common/agents/jmx-exporter.yaml) reads beyond the JVM's and Tomcat's own beans —
 * the request queue in front of Tomcat's workers, the client tier's lock waits. A bean that
 * cannot be registered (a second one of the same name in one JVM, as in unit tests) is logged
 * and skipped: metrics never stop a tier.
 */
public final class Jmx {

    public static final String DOMAIN = "org.soaptestbed";
    private static final Logger LOG = Logger.getLogger(Jmx.class.getName());

    private Jmx() {
    }

    /**
     * Registers {@code bean} as {@code org.soaptestbed:type=<type>,k=v,...} (keys in the order
     * given); returns its name, or null when it could not be registered.
     */
    public static ObjectName register(String type, Map<String, String> keys, Object bean) {
        String props = keys.entrySet().stream().map(e -> "," + e.getKey() + "=" + value(e.getValue()))
                .collect(Collectors.joining());
        try {
            ObjectName name = new ObjectName(DOMAIN + ":type=" + type + props);
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            if (server.isRegistered(name)) {
                server.unregisterMBean(name);   // a tier restarted in the same JVM (tests)
            }
            server.registerMBean(bean, name);
            return name;
        } catch (JMException | RuntimeException e) {
            LOG.warning(() -> "JMX: cannot register " + type + keys + ": " + e);
            return null;
        }
    }

    /** A key's value as is when it may stand unquoted (the exporter then shows it without quotes). */
    private static String value(String v) {
        return v.matches("[A-Za-z0-9._-]+") ? v : ObjectName.quote(v);
    }

    /** Removes a bean {@link #register} returned (null: nothing to do). */
    public static void unregister(ObjectName name) {
        if (name == null) {
            return;
        }
        try {
            ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
        } catch (JMException e) {
            // already gone
        }
    }
}
