package org.soaptestbed.front.ejb;

import org.soaptestbed.common.trace.Span;
import org.soaptestbed.common.trace.Tracer;
import org.soaptestbed.front.container.BeanContext;
import org.soaptestbed.front.container.PooledBean;
import org.soaptestbed.front.invoker.CloneAnswer;
import org.soaptestbed.front.invoker.Invoker;

/**
 * The stateless session bean. The container keeps a pool of these, each serving one call
 * at a time; the SEG4 demand is taken by the container's demand interceptor right before
 * each business method. All instances share one {@link Invoker} (its HTTP client keeps
 * connections to the client tier alive).
 */
public final class SegmentServiceBean implements SegmentService, PooledBean {

    private final Invoker invoker;
    private BeanContext context;

    public SegmentServiceBean(Invoker invoker) {
        this.invoker = invoker;
    }

    @Override
    public void setBeanContext(BeanContext context) {
        this.context = context;
    }

    @Override
    public CallReply visit() {
        try (Span span = Tracer.child("SegmentServiceBean.visit", null)) {
            return reply();
        }
    }

    @Override
    public CallReply invoke(CallRequest request) {
        try (Span span = Tracer.child("SegmentServiceBean.invoke", null)) {
            CloneAnswer answer = invoker.invoke(request.getBackend(), request.getOp(), request.getN());
            CallReply reply = reply();
            reply.setCloneHost(answer.host());
            reply.setClonePid(answer.pid());
            reply.setSoapResult(answer.result());
            return reply;
        }
    }

    private CallReply reply() {
        CallReply reply = new CallReply();
        reply.setBeanName(context.beanName());
        reply.setBeanInstance(context.instanceId());
        return reply;
    }
}
