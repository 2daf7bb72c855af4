package org.soaptestbed.clones;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.soaptestbed.common.Env;

/**
 * The user's own SOAP service, the backend {@code own} ({@code ./testbed up --service WSDL},
 * cli/testbed/ownservice/): set by four variables, all or none.
 *
 * <pre>
 * OWN_WSDL       /own/app?wsdl        where each client build fetches the WSDL: a path under SOAP_URL
 *                                     (HAProxy's soap entry) or an http:// URL
 * OWN_ENDPOINT   /own/app             where the calls go: a path under SOAP_URL (HAProxy's backend
 *                                     "own") or an http:// URL, whatever soap:address the WSDL gives
 * OWN_OPERATION  total                                the operation each /invoke?backend=own calls
 * OWN_TEMPLATE   /path/total.xml                      its request (OwnTemplate), read at start-up
 * </pre>
 */
public record OwnService(URI wsdl, URI endpoint, String operation, OwnTemplate template) {

    static final String[] VARIABLES = {"OWN_WSDL", "OWN_ENDPOINT", "OWN_OPERATION", "OWN_TEMPLATE"};
    private static final int MAX_TEMPLATE_BYTES = 1 << 20;

    /** The service the variables name, or null when none is set. */
    public static OwnService fromEnv(Env env, String soapUrl) {
        int set = 0;
        for (String v : VARIABLES) {
            set += env.raw(v) == null ? 0 : 1;
        }
        if (set == 0) {
            return null;
        }
        for (String v : VARIABLES) {
            if (env.raw(v) == null) {
                throw new Env.BadValue(v, "", "a value: OWN_WSDL, OWN_ENDPOINT, OWN_OPERATION and OWN_TEMPLATE "
                        + "go together (./testbed up --service WSDL sets them)");
            }
        }
        URI wsdl = http("OWN_WSDL", under(soapUrl, env.raw("OWN_WSDL")), true);
        URI endpoint = http("OWN_ENDPOINT", under(soapUrl, env.raw("OWN_ENDPOINT")), false);
        String operation = env.raw("OWN_OPERATION");
        if (!operation.matches("[A-Za-z_][A-Za-z0-9_.-]{0,127}")) {
            throw new Env.BadValue("OWN_OPERATION", operation, "an operation name of the WSDL (an XML name)");
        }
        String file = env.raw("OWN_TEMPLATE");
        OwnTemplate template;
        try {
            byte[] xml = Files.readAllBytes(Path.of(file));
            if (xml.length > MAX_TEMPLATE_BYTES) {
                throw new Env.BadValue("OWN_TEMPLATE", file, "a template of at most 1 MiB");
            }
            template = OwnTemplate.parse(xml);
        } catch (IOException e) {
            throw new Env.BadValue("OWN_TEMPLATE", file, "a readable file (" + e + ")");
        } catch (OwnTemplate.Invalid e) {
            throw new Env.BadValue("OWN_TEMPLATE", file, "a usable template: " + e.getMessage());
        }
        return new OwnService(wsdl, endpoint, operation, template);
    }

    private static String under(String soapUrl, String value) {
        return value.startsWith("/") ? soapUrl + value : value;
    }

    private static URI http(String name, String value, boolean query) {
        try {
            URI uri = new URI(value);
            if ("http".equalsIgnoreCase(uri.getScheme()) && uri.getHost() != null && uri.getFragment() == null
                    && (query || uri.getQuery() == null)) {
                return uri;
            }
        } catch (URISyntaxException e) {
            // reported below
        }
        throw new Env.BadValue(name, value, "an http:// URL with a host" + (query ? "" : " and no query"));
    }

    /** The effective values, named like their variables. */
    public Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("OWN_WSDL", wsdl);
        m.put("OWN_ENDPOINT", endpoint);
        m.put("OWN_OPERATION", operation);
        return m;
    }
}
