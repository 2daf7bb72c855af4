package org.soaptestbed.front.container;

import java.util.Hashtable;
import javax.naming.Context;
import javax.naming.Name;
import javax.naming.NameNotFoundException;
import javax.naming.RefAddr;
import javax.naming.Reference;
import javax.naming.spi.ObjectFactory;

/**
 * The JNDI object factory behind {@code java:comp/env/ejb/<bean>}: Tomcat's naming resolves
 * the bound EJB reference by instantiating this class (by name, see {@link BeanNaming}) and
 * asking it for the object; it answers a fresh client proxy of the bean from the published
 * {@link BeanContainer} the reference names.
 */
public final class BeanObjectFactory implements ObjectFactory {

    /** Reference address holding the container id. */
    public static final String CONTAINER = "container";
    /** Reference address holding the bean name. */
    public static final String BEAN = "bean";

    @Override
    public Object getObjectInstance(Object obj, Name name, Context nameCtx, Hashtable<?, ?> environment)
            throws NameNotFoundException {
        if (!(obj instanceof Reference ref)) {
            return null;
        }
        String containerId = address(ref, CONTAINER);
        String beanName = address(ref, BEAN);
        if (containerId == null || beanName == null) {
            return null;          // not one of ours: let JNDI try another factory
        }
        BeanContainer container = BeanContainer.published(containerId);
        if (container == null) {
            throw new NameNotFoundException("bean container " + containerId + " is not running (looking up "
                    + name + ")");
        }
        try {
            return container.proxy(beanName);
        } catch (IllegalArgumentException e) {
            throw new NameNotFoundException(e.getMessage());
        }
    }

    private static String address(Reference ref, String type) {
        RefAddr addr = ref.get(type);
        return addr == null || addr.getContent() == null ? null : addr.getContent().toString();
    }
}
