package org.soaptestbed.front.container;

/**
 * What the container tells a pooled instance about itself, like an EJB SessionContext:
 * the bean's name and the instance's id in its pool (1..BEAN_POOL_SIZE).
 */
public record BeanContext(String beanName, int instanceId) {
}
