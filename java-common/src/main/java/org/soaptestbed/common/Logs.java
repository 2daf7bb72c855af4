package org.soaptestbed.common;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.StreamHandler;

/**
 * Logging of a JVM tier: java.util.logging to stderr, one line per record
 * ({@code 2025-01-31T12:00:00.123Z INFO  TomcatServer: axis listening on ...}), and the
 * libraries' start-up chatter (Tomcat, Axis2) lowered to warnings so that a tier's start
 * shows the one configuration line of docs/tiers.md.
 */
public final class Logs {

    /** Loggers whose level was changed; JUL holds loggers weakly and would forget the level. */
    private static final List<Logger> PINNED = new ArrayList<>();
    private static boolean configured;

    private Logs() {
    }

    /** One-line records on stderr; idempotent. */
    public static synchronized void configure() {
        if (configured) {
            return;
        }
        configured = true;
        LogManager.getLogManager().reset();
        Logger root = Logger.getLogger("");
        // Not a ConsoleHandler: Tomcat's JULI resets every root ConsoleHandler's formatter.
        Handler handler = new StreamHandler(System.err, new OneLine()) {
            @Override
            public synchronized void publish(LogRecord record) {
                super.publish(record);
                flush();
            }

            @Override
            public synchronized void close() {
                flush();   // never close System.err
            }
        };
        handler.setLevel(Level.ALL);
        root.addHandler(handler);
        root.setLevel(Level.INFO);
    }

    /** Tomcat's INFO records (connector start, engine versions) become silent. */
    static synchronized void quietLibraries() {
        configure();
        setLevel("org.apache.catalina", Level.WARNING);
        setLevel("org.apache.coyote", Level.WARNING);
        setLevel("org.apache.tomcat", Level.WARNING);
    }

    /**
     * Logs one record straight to stderr, bypassing the handlers: for shutdown hooks, which
     * run concurrently with java.util.logging's own hook that removes every handler.
     */
    public static void atShutdown(Class<?> source, String message) {
        LogRecord r = new LogRecord(Level.INFO, message);
        r.setLoggerName(source.getName());
        System.err.print(new OneLine().format(r));
        System.err.flush();
    }

    /** Sets a logger's level and keeps the logger alive so the level sticks. */
    public static synchronized void setLevel(String loggerName, Level level) {
        Logger logger = Logger.getLogger(loggerName);
        logger.setLevel(level);
        PINNED.add(logger);
    }

    private static final class OneLine extends Formatter {
        @Override
        public String format(LogRecord r) {
            String source = r.getLoggerName() == null ? "" : r.getLoggerName();
            source = source.substring(source.lastIndexOf('.') + 1);
            StringBuilder sb = new StringBuilder(160)
                    .append(Instant.ofEpochMilli(r.getMillis()))
                    .append(' ').append(String.format("%-7s", r.getLevel().getName()))
                    .append(' ').append(source).append(": ")
                    .append(formatMessage(r));
            if (r.getThrown() != null) {
                StringWriter trace = new StringWriter();
                r.getThrown().printStackTrace(new PrintWriter(trace));
                sb.append(System.lineSeparator()).append(trace.toString().stripTrailing());
            }
            return sb.append(System.lineSeparator()).toString();
        }
    }
}
