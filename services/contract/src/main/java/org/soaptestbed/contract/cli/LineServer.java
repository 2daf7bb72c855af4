package org.soaptestbed.contract.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * The {@code serve} mode of our command-line tools (this module's {@link Call}, the
 * serialization study's {@code Main}): one warm JVM answers many command lines. Each line of
 * input holds the arguments of one command line (split at whitespace), each answer is one line
 * of output, flushed at once; blank lines are skipped; {@code quit} or the end of the input ends it.
 */
public final class LineServer {

    /** One command line's answer, as one line of text (e.g. a JSON object). */
    @FunctionalInterface
    public interface Answer {
        String line(String[] args) throws Exception;
    }

    private LineServer() {
    }

    public static void serve(InputStream input, PrintStream out, Answer answer) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(input, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            line = line.trim();
            if (line.equals("quit")) {
                return;
            }
            if (!line.isEmpty()) {
                out.println(answer.line(line.split("\\s+")));
                out.flush();
            }
        }
    }
}
