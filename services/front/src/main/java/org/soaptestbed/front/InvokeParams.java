package org.soaptestbed.front;

import org.soaptestbed.contract.Contract;

/**
 * The validated parameters of {@code /seg/5}:
 *
 * <pre>
 * backend  axis  axis | gsoap | own (the user's own service, when the stack has one), the SOAP
 *                service the client tier calls
 * op       ping  a contract operation (Contract.OPERATIONS); for own, its operation's name or
 *                nothing (the client tier knows the one the stack was started with)
 * n        0     payload items, 0..MAX_ITEMS
 * </pre>
 */
public record InvokeParams(String backend, String op, int n) {

    /** Largest n the front passes on: the services' default MAX_XML_OCCURS (docs/tiers.md). */
    public static final int MAX_ITEMS = 10_000_000;

    /** Absent (null or empty) parameters take their defaults; wrong ones raise a 400. */
    public static InvokeParams parse(String backend, String op, String n) {
        String b = blank(backend) ? "axis" : backend;
        if (!b.equals("axis") && !b.equals("gsoap") && !b.equals("own")) {
            throw FrontException.badRequest("backend='" + b + "': expected axis, gsoap or own");
        }
        String o = blank(op) ? (b.equals("own") ? "" : "ping") : op;
        if (b.equals("own")) {
            if (!o.isEmpty() && !o.matches("[A-Za-z_][A-Za-z0-9_.-]{0,127}")) {
                throw FrontException.badRequest("op='" + o + "': expected the name of your service's operation");
            }
        } else if (!Contract.OPERATIONS.contains(o)) {
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
