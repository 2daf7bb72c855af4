package org.soaptestbed.axis;

import java.util.LinkedHashMap;
import java.util.Map;
import org.soaptestbed.common.Demand;
import org.soaptestbed.common.Env;

/**
 * The axis tier's own knobs, beside the Tomcat ones of {@link org.soaptestbed.common.TomcatSettings}:
 *
 * <pre>
 * PORT                      8080      (Tomcat settings; compose maps it behind HAProxy :8082)
 * MAX_XML_DEPTH             64        deepest XML nesting accepted (the Envelope is depth 1)
 * MAX_XML_OCCURS            10000000  most repeated elements (array items) accepted
 * DEMAND_SERVICE_CPU_US     0         CPU time added to every operation
 * DEMAND_SERVICE_WAIT_US    0         wait added to every operation
 * DEMAND_SERVICE_LOCKED     0         1: that demand is taken under the process-wide lock
 * </pre>
 */
record AxisSettings(int maxXmlDepth, int maxXmlOccurs, Demand demand) {

    static final int DEFAULT_PORT = 8080;

    static AxisSettings fromEnv(Env env) {
        return new AxisSettings(
                env.integer("MAX_XML_DEPTH", 64, 4, 100_000),
                env.integer("MAX_XML_OCCURS", 10_000_000, 1, Integer.MAX_VALUE - 1_000),
                Demand.fromEnv(env, "SERVICE"));
    }

    Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("MAX_XML_DEPTH", maxXmlDepth);
        m.put("MAX_XML_OCCURS", maxXmlOccurs);
        m.putAll(demand.describe());
        return m;
    }
}
