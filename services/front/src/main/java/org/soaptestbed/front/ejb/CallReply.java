package org.soaptestbed.front.ejb;

import java.io.Serializable;

/**
 * Result of a {@link SegmentService} call: which bean instance served it and, for
 * {@link SegmentService#invoke}, which clone served the SOAP call and what it answered.
 * A mutable value object, passed by value (the caller gets a copy).
 */
public final class CallReply implements Serializable {
    private static final long serialVersionUID = 1L;

    private String beanName;
    private int beanInstance;
    private String cloneHost;
    private String clonePid;
    private String soapResult;

    public String getBeanName() {
        return beanName;
    }

    public void setBeanName(String beanName) {
        this.beanName = beanName;
    }

    public int getBeanInstance() {
        return beanInstance;
    }

    public void setBeanInstance(int beanInstance) {
        this.beanInstance = beanInstance;
    }

    public String getCloneHost() {
        return cloneHost;
    }

    public void setCloneHost(String cloneHost) {
        this.cloneHost = cloneHost;
    }

    public String getClonePid() {
        return clonePid;
    }

    public void setClonePid(String clonePid) {
        this.clonePid = clonePid;
    }

    public String getSoapResult() {
        return soapResult;
    }

    public void setSoapResult(String soapResult) {
        this.soapResult = soapResult;
    }
}
