package org.soaptestbed.front;

import org.soaptestbed.contract.Contract;

/**
 * The validated parameters of {@code /seg/5}:
 *
 * <pre>
 * backend  axis  axis | gsoap, the SOAP service the client tier calls
 * op       ping  a contract operation (Contract.OPERATIONS)
 * n        0     payload items, 0..MAX_ITEMS
 * </pre>
 */
public record InvokeParams(String backend, String op, int n) {

    /** Largest n the front passes on: the services' default MAX_XML_OCCURS (docs/tiers.md). */
    public static final int MAX_ITEMS = 10_000_000;

    /** Absent (null or empty) parameters take their defaults; wrong ones raise a 400. */
    public static InvokeParams parse(String backend, String op, String n) {
        String b = blank(backend) ? "axis" : backend;
        if (!b.equals("axis") && !b.equals("gsoap")) {
            throw FrontException.badRequest("backend='" + b + "': expected axis or gsoap");
        }
        String o = blank(op) ? "ping" : op;
        if (!Contract.OPERATIONS.contains(o)) {
            throw FrontException.badRequest("op='" + o + "': expected one of " + String.join(", ", Contract.OPERATIONS));
        }
        int items = 0;
        if (!blank(n)) {
            try {
                items = Integer.parseInt(n.trim());
            } catch (NumberFormatException e) {
                items = -1;
            }
            if (items < 0 || items > MAX_ITEMS) {
                throw FrontException.badRequest("n='" + n + "': expected an integer from 0 to " + MAX_ITEMS);
            }
        }
        return new InvokeParams(b, o, items);
    }

    private static boolean blank(String s) {
        return s == null || s.isEmpty();
    }
}
