package org.soaptestbed.contract;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;

/** Facts about the contract that hand-written code needs: its namespace, operations, WSDL. */
public final class Contract {

    public static final String NAMESPACE = "http://soaptestbed.org/contract/v1";

    /** Every operation of the WSDL's port type, in the README's order. */
    public static final List<String> OPERATIONS = List.of(
            "ping", "sendBytes", "sendInts", "sendFloats", "sendDoubles",
            "sendIntBuffer", "echoInts", "work");

    /** Longest cpuMicros or waitMicros a work call may ask for (60 s). */
    public static final long MAX_WORK_MICROS = 60_000_000L;

    private Contract() {
    }

    /** The bytes of services/contract/testbed.wsdl, packaged into this jar at build time. */
    public static byte[] wsdl() {
        try (InputStream in = Contract.class.getResourceAsStream("testbed.wsdl")) {
            if (in == null) {
                throw new IllegalStateException("testbed.wsdl is missing from the contract jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
