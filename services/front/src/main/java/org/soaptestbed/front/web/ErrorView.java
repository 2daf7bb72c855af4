package org.soaptestbed.front.web;

import java.util.logging.Level;
import java.util.logging.Logger;
import org.soaptestbed.front.FrontException;

/**
 * What error.jsp shows for an exception a segment page threw: the HTTP status, the tier
 * that failed and the reason. A {@link FrontException} anywhere in the cause chain decides;
 * anything else is the front's own 500 (logged once with its stack trace, as a bug).
 */
public record ErrorView(int status, String tier, String reason) {

    private static final Logger LOG = Logger.getLogger(ErrorView.class.getName());

    public static ErrorView of(Throwable thrown) {
        for (Throwable t = thrown; t != null; t = t.getCause()) {
            if (t instanceof FrontException e) {
                return new ErrorView(e.status(), e.tier(), e.reason());
            }
        }
        if (thrown == null) {
            return new ErrorView(500, FrontException.FRONT, "unknown error");
        }
        LOG.log(Level.WARNING, "unexpected error in a segment page", thrown);
        return new ErrorView(500, FrontException.FRONT, thrown.toString());
    }
}
