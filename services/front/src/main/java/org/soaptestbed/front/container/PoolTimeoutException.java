package org.soaptestbed.front.container;

/** No pooled instance became free within the pool's timeout: the caller should answer 503. */
public final class PoolTimeoutException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public PoolTimeoutException(String beanName, int poolSize, long timeoutMs) {
        super("no " + beanName + " instance free within BEAN_POOL_TIMEOUT_MS=" + timeoutMs
                + " ms (all BEAN_POOL_SIZE=" + poolSize + " busy)");
    }
}
