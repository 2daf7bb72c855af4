package org.soaptestbed.front.container;

/**
 * Passes arguments and the result by value: the bean gets copies of the caller's
 * arguments, the caller gets a copy of the bean's result ({@link ByValue}). Exceptions are
 * thrown as they are.
 */
public final class ByValueInterceptor implements Interceptor {

    @Override
    public Object invoke(Invocation call) throws Exception {
        call.setArgs(ByValue.copyAll(call.args()));
        return ByValue.copy(call.proceed());
    }
}
