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
 * {@code jsp:setProperty property="*"}. It validates its input, takes the SEG3 demand,
 * and for segments ④ and ⑤ looks the session bean up by name in JNDI and calls it.
 */
public class AccessBean implements Serializable {
    private static final long serialVersionUID = 1L;

    /** What pages print to show the access bean ran. */
    public static final String MARKER = "AccessBean";

    private String backend;
    private String op;
    private String n;
    private InvokeParams params;

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

    /** Segment ③ alone: the facade's own work. */
    public String visit() {
        try (Span span = Tracer.child("AccessBean.visit", null)) {
            Demands.seg3();
            return MARKER;
        }
    }

    /** Segments ③ and ④: the facade calls the session bean. */
    public CallReply callBean() {
        try (Span span = Tracer.child("AccessBean.callBean", null)) {
            Demands.seg3();
            return call(SegmentService::visit);
        }
    }

    /** Segments ③, ④ and ⑤: the session bean's Invoker makes the SOAP call. */
    public CallReply invokeService() {
        try (Span span = Tracer.child("AccessBean.invokeService", null)) {
            params = InvokeParams.parse(backend, op, n);
            Demands.seg3();
            CallRequest request = new CallRequest(params.backend(), params.op(), params.n());
            return call(service -> service.invoke(request));
        }
    }

    /** The validated /seg/5 call, e.g. {@code backend=axis op=ping n=0}. */
    public String getCall() {
        return params == null ? "" : "backend=" + params.backend() + " op=" + params.op() + " n=" + params.n();
    }

    private static CallReply call(Function<SegmentService, CallReply> method) {
        SegmentService service = lookup();
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
