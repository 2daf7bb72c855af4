package org.soaptestbed.front;

import java.io.Serializable;
import java.util.function.Function;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import org.soaptestbed.common.trace.Span;
import org.soaptestbed.common.trace.Tracer;
import org.soaptestbed.front.container.BeanNaming;
import org.soaptestbed.front.container.PoolTimeoutException;
import org.soaptestbed.front.ejb.CallReply;
import org.soaptestbed.front.ejb.CallRequest;
import org.soaptestbed.front.ejb.SegmentService;

/**
 * The access bean of segment ③: a plain JavaBean facade the JSPs create with
 * {@code jsp:useBean} (one per request) and fill from the request with
 * {@code jsp:setProperty property="*"}. Like the classic access beans it hides the EJB lookup:
 * on every path it is on (③, ④, ⑤) it takes the SEG3 demand and acquires the session bean's
 * client view — a JNDI lookup by name, which makes the container's object factory hand out a
 * fresh proxy (the classic home lookup and {@code create()}) — and for segments ④ and ⑤ it
 * calls the bean through that view. It validates its input (/seg/5's parameters) first.
 */
public class AccessBean implements Serializable {
    private static final long serialVersionUID = 1L;

    /** What pages print to show the access bean ran. */
    public static final String MARKER = "AccessBean";

    private String backend;
    private String op;
    private String n;
    private InvokeParams params;
    private transient SegmentService service;

    public AccessBean() {
    }

    // request parameters of /seg/5, validated by invokeService()
    public void setBackend(String backend) {
        this.backend = backend;
    }

    public void setOp(String op) {
        this.op = op;
    }

    public void setN(String n) {
        this.n = n;
    }

    /** Segment ③ alone: the facade's own work, its session bean acquired and not called. */
    public String visit() {
        try (Span span = Tracer.child("AccessBean.visit", null)) {
            acquire();
            return MARKER;
        }
    }

    /** The session bean's client view this access bean acquired, as the page shows it. */
    public String getBeanRef() {
        return service == null ? "" : service.toString();
    }

    /** Segments ③ and ④: the facade calls the session bean. */
    public CallReply callBean() {
        try (Span span = Tracer.child("AccessBean.callBean", null)) {
            acquire();
            return call(SegmentService::visit);
        }
    }

    /** Segments ③, ④ and ⑤: the session bean's Invoker makes the SOAP call. */
    public CallReply invokeService() {
        try (Span span = Tracer.child("AccessBean.invokeService", null)) {
            params = InvokeParams.parse(backend, op, n);
            acquire();
            CallRequest request = new CallRequest(params.backend(), params.op(), params.n());
            return call(bean -> bean.invoke(request));
        }
    }

    /** The validated /seg/5 call, e.g. {@code backend=axis op=ping n=0}. */
    public String getCall() {
        return params == null ? "" : "backend=" + params.backend() + " op=" + params.op() + " n=" + params.n();
    }

    /** The facade's own work on every path: the SEG3 demand, then the session bean's client view. */
    private void acquire() {
        Demands.seg3();
        service = lookup();
    }

    private CallReply call(Function<SegmentService, CallReply> method) {
        try {
            return method.apply(service);
        } catch (PoolTimeoutException e) {
            throw FrontException.unavailable(e.getMessage(), e);
        }
    }

    private static SegmentService lookup() {
        String name = BeanNaming.jndiName(SegmentService.NAME);
        try {
            return (SegmentService) new InitialContext().lookup(name);
        } catch (NamingException e) {
            throw new FrontException(500, FrontException.FRONT, "JNDI lookup of " + name + " failed: " + e, e);
        }
    }
}
