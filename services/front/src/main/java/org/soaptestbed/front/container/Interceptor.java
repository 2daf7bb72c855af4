package org.soaptestbed.front.container;

/**
 * One link of the chain the container runs around every business method call, like an EJB
 * {@code @AroundInvoke}: do something, call {@link Invocation#proceed()}, do something after.
 */
@FunctionalInterface
public interface Interceptor {

    /** @return the business method's result (or what this interceptor makes of it) */
    Object invoke(Invocation call) throws Exception;
}
