package org.soaptestbed.clones;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.LinkedHashMap;
import java.util.Map;

/** Who answered: this replica's host name and pid; every answer names them with the client mode. */
record Identity(String host, long pid) {

    static Identity current() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = System.getenv().getOrDefault("HOSTNAME", "unknown");
        }
        return new Identity(host, ProcessHandle.current().pid());
    }

    Map<String, Object> describe(ClientMode mode) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("host", host);
        m.put("pid", pid);
        m.put("mode", mode.label());
        return m;
    }
}
