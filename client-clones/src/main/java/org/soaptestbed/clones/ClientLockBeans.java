package org.soaptestbed.clones;

import java.util.LinkedHashMap;
import java.util.Map;

/** The name keys of a {@link ClientLockMXBean}: org.soaptestbed:type=ClientLock,backend=B,mode=M. */
final class ClientLockBeans {

    private ClientLockBeans() {
    }

    static Map<String, String> keys(Backend backend, String mode) {
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put("backend", backend.label());
        keys.put("mode", mode);
        return keys;
    }
}
