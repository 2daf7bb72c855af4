package org.soaptestbed.servers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class WorkTest {

    @Test
    void the_three_forms_parse_and_print_back() {
        assertEquals(Work.NONE, Work.parse("none"));
        assertEquals(new Work(Work.Kind.CPU, 250), Work.parse("cpu:250"));
        assertEquals(new Work(Work.Kind.WAIT, 1000), Work.parse(" WAIT:1000 "));
        assertEquals("wait:1000", Work.parse("wait:1000").toString());
        assertEquals(Work.NONE, Work.parse("cpu:0"));
    }

    @Test
    void anything_else_names_the_expected_forms() {
        for (String bad : new String[] {"", "cpu", "cpu:", "cpu:-1", "sleep:5", "wait:1ms", "cpu:99999999999"}) {
            Options.Bad e = assertThrows(Options.Bad.class, () -> Work.parse(bad), bad);
            assertTrue(e.getMessage().contains("none, cpu:<µs> or wait:<µs>"), e.getMessage());
        }
    }

    @Test
    void a_sub_millisecond_wait_is_not_rounded_up_to_a_millisecond_nor_cut_short() {
        long t0 = System.nanoTime();
        for (int i = 0; i < 20; i++) {
            Work.park(200);
        }
        long took = System.nanoTime() - t0;
        assertTrue(took >= 20 * 200_000L, "20 waits of 200 µs took " + took / 1000 + " µs");
    }
}
