package org.soaptestbed.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

class OptionsTest {

    @Test
    void values_defaults_and_ranges() {
        Options o = new Options(new String[] {"server", "--pool", "20"}, 1, Set.of("pool", "model"));
        assertEquals(20, o.integer("pool", 1, 1, 100));
        assertEquals("thread", o.text("model", "thread"));
        Options.Bad e = assertThrows(Options.Bad.class, () -> o.integer("pool", 1, 1, 10));
        assertTrue(e.getMessage().contains("--pool 20: expected a whole number from 1 to 10"), e.getMessage());
    }

    @Test
    void an_unknown_option_or_a_missing_value_is_named() {
        Options.Bad e = assertThrows(Options.Bad.class,
                () -> new Options(new String[] {"client", "--conections", "5"}, 1, Set.of("connections")));
        assertTrue(e.getMessage().contains("unknown option --conections"), e.getMessage());
        e = assertThrows(Options.Bad.class,
                () -> new Options(new String[] {"client", "--connections"}, 1, Set.of("connections")));
        assertTrue(e.getMessage().contains("--connections needs a value"), e.getMessage());
    }
}
