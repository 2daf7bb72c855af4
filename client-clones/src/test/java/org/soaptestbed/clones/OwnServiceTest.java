package org.soaptestbed.clones;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.soaptestbed.common.Env;

class OwnServiceTest {

    private static final String TEMPLATE = """
            <!-- total (document/literal) -->
            <ns0:total xmlns:ns0="urn:shop" xmlns:tb="urn:soap-testbed:template">
              <ns0:items>
                <ns0:Item tb:repeat="${n}"><ns0:name>item ${n}</ns0:name><ns0:price>1.5</ns0:price></ns0:Item>
              </ns0:items>
              <ns0:note tb:repeat="2">fixed</ns0:note>
            </ns0:total>""";

    private static OwnTemplate template(String xml) throws OwnTemplate.Invalid {
        return OwnTemplate.parse(xml.getBytes(StandardCharsets.UTF_8));
    }

    private static int count(String text, String part) {
        return text.split(java.util.regex.Pattern.quote(part), -1).length - 1;
    }

    @Test
    void a_template_is_expanded_to_n_items_without_its_own_markup() throws Exception {
        OwnTemplate t = template(TEMPLATE);
        assertEquals("total", t.rootName());
        String three = t.expand(3);
        assertEquals(3, count(three, "<ns0:Item>"));
        assertEquals(3, count(three, "<ns0:name>item 3</ns0:name>"));
        assertEquals(2, count(three, "<ns0:note>"));
        assertFalse(three.contains("urn:soap-testbed:template"), three);
        assertFalse(three.contains("tb:"), three);
        assertFalse(three.contains("<!--"), three);
        assertEquals(0, count(t.expand(0), "<ns0:Item"));
        assertEquals(1000, count(t.expand(1000), "<ns0:Item>"));
        assertEquals(three, t.expand(3));      // the same text again, from the cache
    }

    @Test
    void a_template_the_clone_cannot_expand_is_refused_with_where() {
        OwnTemplate.Invalid e = assertThrows(OwnTemplate.Invalid.class,
                () -> template("<a xmlns:tb='urn:soap-testbed:template'><b>${price}</b></a>"));
        assertTrue(e.getMessage().contains("/a") && e.getMessage().contains("${price}"), e.getMessage());
        e = assertThrows(OwnTemplate.Invalid.class,
                () -> template("<a xmlns:tb='urn:soap-testbed:template'><b tb:repeat='lots'/></a>"));
        assertTrue(e.getMessage().contains("/a/b") && e.getMessage().contains("lots"), e.getMessage());
        e = assertThrows(OwnTemplate.Invalid.class,
                () -> template("<a xmlns:tb='urn:soap-testbed:template'><b tb:repeat='100001'/></a>"));
        assertTrue(e.getMessage().contains("100000"), e.getMessage());
        assertThrows(OwnTemplate.Invalid.class,
                () -> template("<!DOCTYPE a [<!ENTITY x SYSTEM 'file:///etc/passwd'>]><a>&x;</a>"));
        assertThrows(OwnTemplate.Invalid.class, () -> template("<a><b></a>"));
    }

    @Test
    void the_own_service_is_configured_by_its_four_variables_together(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("total.xml");
        Files.writeString(file, TEMPLATE);
        Map<String, String> vars = Map.of("SOAP_URL", "http://lb:9000", "OWN_WSDL", "/own/?wsdl",
                "OWN_ENDPOINT", "/own/", "OWN_OPERATION", "total", "OWN_TEMPLATE", file.toString());
        CloneConfig c = CloneConfig.fromEnv(new Env(vars));
        assertEquals(List.of(Backend.AXIS, Backend.GSOAP, Backend.OWN), c.backends());
        assertEquals(URI.create("http://lb:9000/own/"), c.endpoint(Backend.OWN));
        assertEquals(URI.create("http://lb:9000/own/?wsdl"), c.own().wsdl());
        assertEquals("total", c.own().operation());

        CloneConfig none = CloneConfig.fromEnv(new Env(Map.of()));
        assertNull(none.own());
        assertEquals(List.of(Backend.AXIS, Backend.GSOAP), none.backends());

        Env.BadValue e = assertThrows(Env.BadValue.class,
                () -> CloneConfig.fromEnv(new Env(Map.of("OWN_WSDL", "/own/?wsdl"))));
        assertTrue(e.getMessage().contains("OWN_ENDPOINT"), e.getMessage());
        e = assertThrows(Env.BadValue.class, () -> CloneConfig.fromEnv(new Env(Map.of("OWN_WSDL", "/own/?wsdl",
                "OWN_ENDPOINT", "/own/", "OWN_OPERATION", "total", "OWN_TEMPLATE", dir.resolve("none.xml").toString()))));
        assertTrue(e.getMessage().contains("readable file"), e.getMessage());
        e = assertThrows(Env.BadValue.class, () -> CloneConfig.fromEnv(new Env(Map.of("OWN_WSDL", "ftp://x/?wsdl",
                "OWN_ENDPOINT", "/own/", "OWN_OPERATION", "total", "OWN_TEMPLATE", file.toString()))));
        assertTrue(e.getMessage().startsWith("OWN_WSDL="), e.getMessage());
    }

    @Test
    void backend_own_is_refused_unless_the_clone_has_a_service_of_its_own() {
        InvokeRequest.BadRequest e = assertThrows(InvokeRequest.BadRequest.class,
                () -> InvokeRequest.parse(Map.of("backend", "own")::get, List.of("backend"), 1000));
        assertTrue(e.getMessage().contains("--service"), e.getMessage());
    }
}
