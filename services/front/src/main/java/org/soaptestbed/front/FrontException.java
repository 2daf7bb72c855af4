package org.soaptestbed.front;

/**
 * A request the front cannot serve, with the HTTP status it answers, the tier that failed
 * and why. The error page ({@code web.ErrorPageServlet}) renders it.
 */
public final class FrontException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The tier names error pages use. */
    public static final String FRONT = "front";
    public static final String CLIENT_TIER = "client tier";

    private final int status;
    private final String tier;

    public FrontException(int status, String tier, String reason) {
        this(status, tier, reason, null);
    }

    public FrontException(int status, String tier, String reason, Throwable cause) {
        super(reason, cause);
        this.status = status;
        this.tier = tier;
    }

    /** 400: the request's parameters are wrong; the reason names the fix. */
    public static FrontException badRequest(String reason) {
        return new FrontException(400, FRONT, reason);
    }

    /** 502: a tier behind the front answered an error or could not be reached. */
    public static FrontException badGateway(String tier, String reason, Throwable cause) {
        return new FrontException(502, tier, reason, cause);
    }

    /** 503: the front itself is out of a resource (a free bean instance). */
    public static FrontException unavailable(String reason, Throwable cause) {
        return new FrontException(503, FRONT, reason, cause);
    }

    /** 504: a tier behind the front did not answer in time. */
    public static FrontException gatewayTimeout(String tier, String reason, Throwable cause) {
        return new FrontException(504, tier, reason, cause);
    }

    public int status() {
        return status;
    }

    public String tier() {
        return tier;
    }

    public String reason() {
        return getMessage();
    }
}
