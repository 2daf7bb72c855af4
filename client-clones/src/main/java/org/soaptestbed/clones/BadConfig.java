package org.soaptestbed.clones;

/**
 * A variable of this tier is set to something it cannot use. The message has the form of
 * java-common's {@code Env.BadValue} (whose constructor is not public), so every start-up
 * error of a tier reads alike: {@code CLIENT_MODE='x' is not valid: expected ...}.
 */
public final class BadConfig extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public BadConfig(String name, String value, String expected) {
        super(name + "='" + value.replace("'", "\\'") + "' is not valid: expected " + expected);
    }
}
