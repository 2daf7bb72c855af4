package org.soaptestbed.front.ejb;

import java.io.Serializable;

/**
 * Argument of {@link SegmentService#invoke}: which SOAP call the client tier should make.
 * A mutable value object, passed by value (the bean gets a copy).
 */
public final class CallRequest implements Serializable {
    private static final long serialVersionUID = 1L;

    private String backend;
    private String op;
    private int n;

    public CallRequest() {
    }

    public CallRequest(String backend, String op, int n) {
        this.backend = backend;
        this.op = op;
        this.n = n;
    }

    public String getBackend() {
        return backend;
    }

    public void setBackend(String backend) {
        this.backend = backend;
    }

    public String getOp() {
        return op;
    }

    public void setOp(String op) {
        this.op = op;
    }

    public int getN() {
        return n;
    }

    public void setN(int n) {
        this.n = n;
    }
}
