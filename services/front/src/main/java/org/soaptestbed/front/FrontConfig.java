package org.soaptestbed.front;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.soaptestbed.common.Demand;
import org.soaptestbed.common.Env;
import org.soaptestbed.common.TomcatSettings;

/**
 * Every knob of the front, read once at start-up (docs/tiers.md), with its default:
 *
 * <pre>
 * PORT, BIND, TOMCAT_*, MAX_MESSAGE_BYTES   see TomcatSettings (PORT default 8080)
 * CLONES_URL            http://127.0.0.1:8081  the client tier (HAProxy's "clones" entry)
 * BEAN_POOL_SIZE        100    SegmentService instances in the bean pool
 * BEAN_POOL_TIMEOUT_MS  5000   longest wait for a free instance; then HTTP 503
 * INVOKER_TIMEOUT_MS    30000  longest wait for the client tier's answer; then HTTP 504
 * DEMAND_SEG1_*         0      synthetic demand of every /seg/k request  (segment ①)
 * DEMAND_SEG2_*         0      ... of the JSP                             (segment ②)
 * DEMAND_SEG3_*         0      ... of the AccessBean                      (segment ③)
 * DEMAND_SEG4_*         0      ... of the bean's business method          (segment ④)
 * DEMAND_INVOKER_*      0      ... of the Invoker, before its HTTP call   (segment ⑤)
 * </pre>
 */
public record FrontConfig(TomcatSettings tomcat, URI clonesUrl, int beanPoolSize, long beanPoolTimeoutMs,
                          long invokerTimeoutMs, Demand seg1, Demand seg2, Demand seg3, Demand seg4, Demand invoker) {

    public static final int DEFAULT_PORT = 8080;
    public static final String DEFAULT_CLONES_URL = "http://127.0.0.1:8081";

    public static FrontConfig fromEnv(Env env) {
        return new FrontConfig(
                TomcatSettings.fromEnv(env, DEFAULT_PORT),
                httpUrl(env, "CLONES_URL", DEFAULT_CLONES_URL),
                env.integer("BEAN_POOL_SIZE", 100, 1, 100_000),
                env.longInteger("BEAN_POOL_TIMEOUT_MS", 5_000, 0, 3_600_000),
                env.longInteger("INVOKER_TIMEOUT_MS", 30_000, 1, 3_600_000),
                Demand.fromEnv(env, "SEG1"),
                Demand.fromEnv(env, "SEG2"),
                Demand.fromEnv(env, "SEG3"),
                Demand.fromEnv(env, "SEG4"),
                Demand.fromEnv(env, "INVOKER"));
    }

    private static URI httpUrl(Env env, String name, String defaultValue) {
        String value = env.string(name, defaultValue);
        URI uri = null;
        try {
            uri = new URI(value);
        } catch (URISyntaxException e) {
            // reported below
        }
        if (uri == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
                || uri.getHost() == null || uri.getRawQuery() != null) {
            throw new Env.BadValue(name, value, "an http:// URL with a host and no query, e.g. " + defaultValue);
        }
        return uri;
    }

    public Duration invokerTimeout() {
        return Duration.ofMillis(invokerTimeoutMs);
    }

    /** The front's own effective values, for the start-up line (Tomcat's are printed beside them). */
    public Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("CLONES_URL", clonesUrl);
        m.put("BEAN_POOL_SIZE", beanPoolSize);
        m.put("BEAN_POOL_TIMEOUT_MS", beanPoolTimeoutMs);
        m.put("INVOKER_TIMEOUT_MS", invokerTimeoutMs);
        for (Demand d : new Demand[] {seg1, seg2, seg3, seg4, invoker}) {
            m.putAll(d.describe());
        }
        return m;
    }
}
