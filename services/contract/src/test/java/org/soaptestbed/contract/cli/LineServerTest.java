package org.soaptestbed.contract.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The serve loop: one answer line per command line, blanks skipped, quit ends it. */
class LineServerTest {

    private static String serve(String input) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        LineServer.serve(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8), args -> String.join("|", args));
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void eachLineIsOneCommandLineSplitAtWhitespace() throws Exception {
        assertEquals("--op|ping\na|b|c\n", serve("  --op   ping \n\n   \na\tb c"));
    }

    @Test
    void quitEndsItAndTheRestIsNotRead() throws Exception {
        assertEquals("one\n", serve("one\nquit\ntwo\n"));
    }
}
