package org.soaptestbed.front.container;

/**
 * Takes an instance from the bean's pool for the rest of the chain and the business method,
 * and gives it back afterwards, whatever happened. Throws {@link PoolTimeoutException} when
 * no instance became free in time.
 */
public final class PoolInterceptor implements Interceptor {

    private final BeanPool pool;

    public PoolInterceptor(BeanPool pool) {
        this.pool = pool;
    }

    @Override
    public Object invoke(Invocation call) throws Exception {
        BeanPool.Instance instance = pool.acquire();
        call.setInstance(instance);
        try {
            return call.proceed();
        } finally {
            call.setInstance(null);
            pool.release(instance);
        }
    }
}
