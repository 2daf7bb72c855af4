package org.soaptestbed.front.container;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;

/**
 * One business method call on its way through the interceptor chain to a pooled bean
 * instance. Not thread-safe: it belongs to the calling thread for the duration of the call.
 */
public final class Invocation {

    private final String beanName;
    private final Method method;
    private final List<Interceptor> chain;
    private Object[] args;
    private BeanPool.Instance instance;   // set by the pool interceptor
    private int next;

    Invocation(String beanName, Method method, Object[] args, List<Interceptor> chain) {
        this.beanName = beanName;
        this.method = method;
        this.args = args == null ? new Object[0] : args;
        this.chain = chain;
    }

    public String beanName() {
        return beanName;
    }

    public Method method() {
        return method;
    }

    public Object[] args() {
        return args;
    }

    /** Replaces the arguments (the by-value interceptor passes copies on). */
    public void setArgs(Object[] args) {
        this.args = args;
    }

    /** The pooled instance serving this call, or null before the pool interceptor ran. */
    public BeanPool.Instance instance() {
        return instance;
    }

    public void setInstance(BeanPool.Instance instance) {
        this.instance = instance;
    }

    /** Calls the next interceptor, or the business method on the instance after the last one. */
    public Object proceed() throws Exception {
        if (next < chain.size()) {
            return chain.get(next++).invoke(this);
        }
        if (instance == null) {
            throw new IllegalStateException(beanName + "." + method.getName()
                    + ": no bean instance; the chain lacks the pool interceptor");
        }
        try {
            return method.invoke(instance.bean(), args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception) {
                throw (Exception) cause;
            }
            throw (Error) cause;
        }
    }
}
