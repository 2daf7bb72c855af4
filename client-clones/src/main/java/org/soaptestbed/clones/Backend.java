package org.soaptestbed.clones;

import java.util.Locale;

/** A SOAP service implementation the tier can call; each has its own path behind HAProxy. */
public enum Backend {
    AXIS("/axis"), GSOAP("/gsoap"),
    /** The user's own service (OWN_*: {@link OwnService}), when one is configured. */
    OWN("/own");

    private final String path;

    Backend(String path) {
        this.path = path;
    }

    /** The endpoint's path under SOAP_URL. */
    public String path() {
        return path;
    }

    /** The name used in query parameters, JSON and variable names ({@code axis}, {@code gsoap}, {@code own}). */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The backend named {@code value} (any case), or null. */
    public static Backend find(String value) {
        for (Backend b : values()) {
            if (b.label().equalsIgnoreCase(value)) {
                return b;
            }
        }
        return null;
    }
}
