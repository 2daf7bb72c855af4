package org.soaptestbed.front.container;

/**
 * Optional life-cycle callback of a bean class, like EJB 2's
 * {@code SessionBean.setSessionContext}: the container calls it once, when it creates the
 * instance for its pool, before any business method.
 */
public interface PooledBean {

    void setBeanContext(BeanContext context);
}
