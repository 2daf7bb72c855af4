package org.soaptestbed.axis;

/**
 * The request is wrong, not the service: answered as a SOAP 1.1 {@code Client} fault
 * (HTTP 500). Unchecked because the generated skeleton interface declares no exceptions.
 */
final class ClientFault extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ClientFault(String reason) {
        super(reason, null, false, false);   // no stack trace: it is an answer, not a bug
    }
}
