package org.soaptestbed.clones;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.soaptestbed.common.Demand;
import org.soaptestbed.common.Env;

/**
 * Everything the client tier reads from its environment, once, at start-up (besides the
 * TOMCAT_* knobs of {@link org.soaptestbed.common.TomcatSettings}):
 *
 * <pre>
 * SOAP_URL          http://127.0.0.1:8082  HAProxy's "soap" entry; the endpoints are
 *                                          SOAP_URL/axis and SOAP_URL/gsoap
 * SOAP_URL_AXIS     (SOAP_URL/axis)        full endpoint URL of the axis backend, when it is
 *                                          not under SOAP_URL (tests run services directly)
 * SOAP_URL_GSOAP    (SOAP_URL/gsoap)       likewise for gsoap
 * CLIENT_MODE       singleton              singleton | request | pool ({@link ClientMode})
 * CLIENT_POOL_SIZE  8                      clients per backend in pool mode
 * CLIENT_MAX_ITEMS  1000000                largest n one /invoke may ask for (keeps the heap safe)
 * SOAP_TIMEOUT_MS   30000                  connect and read timeout of a SOAP call, the
 *                                          longest wait for a pooled client, and the deadline
 *                                          of an /invoke waiting for the singleton
 * DEMAND_CLONE_CPU_US / _WAIT_US / _LOCKED  synthetic demand per /invoke (docs/tiers.md)
 * OWN_*             (unset)                the user's own service, backend own ({@link OwnService})
 * </pre>
 */
public record CloneConfig(
        ClientMode mode,
        int poolSize,
        int maxItems,
        int soapTimeoutMs,
        Map<Backend, URI> endpoints,
        Demand demand,
        OwnService own) {

    public static final String DEFAULT_SOAP_URL = "http://127.0.0.1:8082";

    public CloneConfig {
        endpoints = Collections.unmodifiableMap(new EnumMap<>(endpoints));
    }

    public static CloneConfig fromEnv(Env env) {
        String soapUrl = stripSlash(env.string("SOAP_URL", DEFAULT_SOAP_URL));
        httpUri("SOAP_URL", soapUrl);
        Map<Backend, URI> endpoints = new EnumMap<>(Backend.class);
        OwnService own = OwnService.fromEnv(env, soapUrl);
        if (own != null) {
            endpoints.put(Backend.OWN, own.endpoint());
        }
        for (Backend b : new Backend[] {Backend.AXIS, Backend.GSOAP}) {
            String name = "SOAP_URL_" + b.name();
            String given = env.raw(name);
            endpoints.put(b, given != null ? httpUri(name, stripSlash(given)) : httpUri("SOAP_URL", soapUrl + b.path()));
        }
        return new CloneConfig(
                ClientMode.fromEnv(env),
                env.integer("CLIENT_POOL_SIZE", 8, 1, 1024),
                env.integer("CLIENT_MAX_ITEMS", 1_000_000, 0, 100_000_000),
                env.integer("SOAP_TIMEOUT_MS", 30_000, 1, 3_600_000),
                endpoints,
                Demand.fromEnv(env, "CLONE"),
                own);
    }

    private static String stripSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    private static URI httpUri(String name, String value) {
        try {
            URI uri = new URI(value);
            if (!"http".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null
                    || uri.getQuery() != null || uri.getFragment() != null) {
                throw new Env.BadValue(name, value, "an http:// URL with a host, like " + DEFAULT_SOAP_URL);
            }
            return uri;
        } catch (URISyntaxException e) {
            throw new Env.BadValue(name, value, "an http:// URL, like " + DEFAULT_SOAP_URL);
        }
    }

    /** The same configuration with another client lifecycle (POST /lifecycle). */
    public CloneConfig withLifecycle(ClientMode newMode, int newPoolSize) {
        return new CloneConfig(newMode, newPoolSize, maxItems, soapTimeoutMs, endpoints, demand, own);
    }

    public URI endpoint(Backend backend) {
        return endpoints.get(backend);
    }

    /** The backends this tier can call: axis, gsoap, and own when OWN_* name a service. */
    public List<Backend> backends() {
        return List.copyOf(endpoints.keySet());
    }

    /** The effective values, named like their variables, for the start-up log line. */
    public Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put(ClientMode.VARIABLE, mode.label());
        m.put("CLIENT_POOL_SIZE", poolSize);
        m.put("CLIENT_MAX_ITEMS", maxItems);
        m.put("SOAP_TIMEOUT_MS", soapTimeoutMs);
        for (Map.Entry<Backend, URI> e : endpoints.entrySet()) {
            m.put("SOAP_URL_" + e.getKey().name(), e.getValue());
        }
        m.putAll(demand.describe());
        if (own != null) {
            m.putAll(own.describe());
        }
        return m;
    }
}
