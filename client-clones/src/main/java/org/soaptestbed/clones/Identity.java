package org.soaptestbed.clones;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.LinkedHashMap;
import java.util.Map;

/** Who answered: this replica's host name, pid and client mode, as every answer names them. */
record Identity(String host, long pid, ClientMode mode) {

    static Identity current(ClientMode mode) {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = System.getenv().getOrDefault("HOSTNAME", "unknown");
        }
        return new Identity(host, ProcessHandle.current().pid(), mode);
    }

    Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("host", host);
        m.put("pid", pid);
        m.put("mode", mode.label());
        return m;
    }
}
