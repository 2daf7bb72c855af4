package org.soaptestbed.front.container;

import java.util.List;
import java.util.function.Supplier;

/**
 * What the container needs to deploy one stateless bean, like an ejb-jar.xml entry.
 *
 * @param name          the bean's name; JNDI binds it as {@code java:comp/env/ejb/<name>}
 * @param businessInterface what callers see (they never see the bean class)
 * @param factory       makes one instance (the pool calls it {@code poolSize} times)
 * @param poolSize      instances in the pool
 * @param poolTimeoutMs longest wait for a free instance
 * @param interceptors  the bean's own interceptors, run innermost, in this order, after the
 *                      container's (timing, by-value, pool)
 */
public record BeanDeployment(String name, Class<?> businessInterface, Supplier<?> factory,
                             int poolSize, long poolTimeoutMs, List<Interceptor> interceptors) {

    public BeanDeployment {
        if (!businessInterface.isInterface()) {
            throw new IllegalArgumentException(name + ": " + businessInterface.getName() + " is not an interface");
        }
        interceptors = List.copyOf(interceptors);
    }
}
