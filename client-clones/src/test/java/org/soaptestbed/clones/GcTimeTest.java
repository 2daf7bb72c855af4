package org.soaptestbed.clones;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GcTimeTest {

    @Test
    void a_collection_counts_and_the_counters_only_grow() {
        Map<String, Object> before = GcTime.describe();
        System.gc();                                  // a full collection (not disabled in the tests' JVM)
        Map<String, Object> after = GcTime.describe();
        assertFalse(((List<?>) after.get("collectors")).isEmpty(), after.toString());
        assertTrue((Long) after.get("collections") > (Long) before.get("collections"), before + " -> " + after);
        assertTrue((Long) after.get("time_ns") >= (Long) before.get("time_ns"), before + " -> " + after);
    }
}
