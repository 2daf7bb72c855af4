package org.soaptestbed.front.ejb;

/**
 * Business interface of the EJB-like stateless session bean of segments ④ and ⑤. Callers
 * look it up as {@code java:comp/env/ejb/SegmentService}; arguments and results travel by
 * value.
 */
public interface SegmentService {

    /** The bean's JNDI/deployment name. */
    String NAME = "SegmentService";

    /** Segment ④: a business method that does the bean's own work (SEG4 demand) only. */
    CallReply visit();

    /** Segment ⑤: the bean's Invoker makes the SOAP call through the client tier. */
    CallReply invoke(CallRequest request);
}
