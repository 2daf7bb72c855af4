package org.soaptestbed.front.container;

import org.apache.catalina.Context;
import org.apache.tomcat.util.descriptor.web.ContextEjb;

/**
 * Declares a deployed bean in a Tomcat context's naming environment, as an
 * {@code <ejb-ref>} of web.xml would: after start, code running in that context finds it
 * with {@code new InitialContext().lookup("java:comp/env/ejb/<bean>")}. Tomcat's naming
 * must be enabled ({@code Tomcat.enableNaming()}).
 */
public final class BeanNaming {

    /** The JNDI prefix of every bean reference. */
    public static final String ENV_PREFIX = "java:comp/env/";

    private BeanNaming() {
    }

    /** The name relative to java:comp/env, e.g. {@code ejb/SegmentService}. */
    public static String refName(String beanName) {
        return "ejb/" + beanName;
    }

    /** The full JNDI name callers look up. */
    public static String jndiName(String beanName) {
        return ENV_PREFIX + refName(beanName);
    }

    public static void declare(Context context, BeanContainer container, String beanName, Class<?> businessInterface) {
        ContextEjb ejb = new ContextEjb();
        ejb.setName(refName(beanName));
        ejb.setType("Session");
        ejb.setRemote(businessInterface.getName());
        // Tomcat's EjbFactory delegates to the factory named here, with the properties below
        ejb.setProperty("factory", BeanObjectFactory.class.getName());
        ejb.setProperty(BeanObjectFactory.CONTAINER, container.id());
        ejb.setProperty(BeanObjectFactory.BEAN, beanName);
        context.getNamingResources().addEjb(ejb);
    }
}
