package org.soaptestbed.clones;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringWriter;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.transform.OutputKeys;
import javax.xml.transform.Transformer;
import javax.xml.transform.TransformerException;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import org.w3c.dom.Attr;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NamedNodeMap;
import org.w3c.dom.Node;
import org.xml.sax.SAXException;

/**
 * The request of the user's own operation: the template {@code ./testbed service sample} wrote
 * (the content of the SOAP Body), with every parameter but {@code n} already given its value by
 * the launcher. Here {@code ${n}} is the array size of one /invoke: an element carrying
 * {@code tb:repeat="${n}"} (or a whole number) is written that many times, and {@code ${n}} in a
 * value or an attribute becomes the number. The {@code tb:} namespace never reaches the service.
 *
 * <p>Expansions are kept for up to {@value #CACHED} sizes: a run uses a few sizes, and the
 * per-call cost left is parsing the text into the request (the client's serialization).
 */
public final class OwnTemplate {

    /** The namespace of the template's own markup (cli/testbed/ownservice/wsdl.py). */
    public static final String NAMESPACE = "urn:soap-testbed:template";
    public static final int MAX_REPEAT = 100_000;
    private static final int CACHED = 16;
    private static final Pattern PARAM = Pattern.compile("\\$\\{([^}]*)}");

    /** The template cannot be used; the message says where. */
    public static final class Invalid extends Exception {
        private static final long serialVersionUID = 1L;

        Invalid(String message) {
            super(message);
        }
    }

    private final Document template;
    private final String rootName;
    /** Read on every call: a concurrent map, no lock (a clone's locks are what experiments measure). */
    private final Map<Integer, String> expanded = new ConcurrentHashMap<>();

    private OwnTemplate(Document template) {
        this.template = template;
        this.rootName = template.getDocumentElement().getLocalName();
    }

    /** Reads a template: XML without a DTD, one root element, no parameter left but {@code ${n}}. */
    public static OwnTemplate parse(byte[] xml) throws Invalid {
        Document doc;
        try {
            doc = builder().parse(new ByteArrayInputStream(xml));
        } catch (SAXException | IOException e) {
            throw new Invalid("not well-formed XML: " + e.getMessage());
        }
        check(doc.getDocumentElement(), "/" + doc.getDocumentElement().getLocalName());
        return new OwnTemplate(doc);
    }

    /** The local name of the template's root: the operation's input element. */
    public String rootName() {
        return rootName;
    }

    /** The request for arrays of {@code n} items, as XML text. */
    public String expand(int n) {
        String text = expanded.get(n);
        if (text == null) {
            text = render(n);
            if (expanded.size() >= CACHED) {
                expanded.clear();           // a run uses a few sizes; a caller sweeping sizes starts over
            }
            expanded.put(n, text);
        }
        return text;
    }

    private String render(int n) {
        Document copy;
        synchronized (template) {           // a DOM is not safe for concurrent reads, cloning included
            copy = (Document) template.cloneNode(true);
        }
        Element root = copy.getDocumentElement();
        apply(root, n);
        root.removeAttributeNS(XMLConstants.XMLNS_ATTRIBUTE_NS_URI, prefixOf(root));
        try {
            Transformer t = TransformerFactory.newInstance().newTransformer();
            t.setOutputProperty(OutputKeys.OMIT_XML_DECLARATION, "yes");
            StringWriter out = new StringWriter();
            t.transform(new DOMSource(root), new StreamResult(out));
            return out.toString();
        } catch (TransformerException e) {
            throw new IllegalStateException("cannot write the expanded template", e);
        }
    }

    /** The prefix the template's own namespace is declared with on the root ("tb"), or "tb". */
    private static String prefixOf(Element root) {
        NamedNodeMap attrs = root.getAttributes();
        for (int i = 0; i < attrs.getLength(); i++) {
            Attr a = (Attr) attrs.item(i);
            if (XMLConstants.XMLNS_ATTRIBUTE_NS_URI.equals(a.getNamespaceURI()) && NAMESPACE.equals(a.getValue())) {
                return a.getLocalName();
            }
        }
        return "tb";
    }

    private static void apply(Element el, int n) {
        NamedNodeMap attrs = el.getAttributes();
        for (int i = 0; i < attrs.getLength(); i++) {
            Attr a = (Attr) attrs.item(i);
            a.setValue(substitute(a.getValue(), n));
        }
        for (Node c = el.getFirstChild(); c != null; ) {
            Node next = c.getNextSibling();
            if (c instanceof Element child) {
                String repeat = child.getAttributeNS(NAMESPACE, "repeat");
                child.removeAttributeNS(NAMESPACE, "repeat");
                apply(child, n);
                if (!repeat.isEmpty()) {
                    int times = Integer.parseInt(substitute(repeat, n));
                    for (int k = 1; k < times; k++) {
                        el.insertBefore(child.cloneNode(true), next);
                    }
                    if (times == 0) {
                        el.removeChild(child);
                    }
                }
            } else if (c.getNodeType() == Node.TEXT_NODE || c.getNodeType() == Node.CDATA_SECTION_NODE) {
                c.setNodeValue(substitute(c.getNodeValue(), n));
            } else if (c.getNodeType() == Node.COMMENT_NODE) {
                el.removeChild(c);
            }
            c = next;
        }
    }

    private static String substitute(String text, int n) {
        return text.contains("${") ? text.replace("${n}", Integer.toString(n)) : text;
    }

    /** Every parameter is ${n}; every tb:repeat is ${n} or a whole number 0..MAX_REPEAT. */
    private static void check(Element el, String path) throws Invalid {
        NamedNodeMap attrs = el.getAttributes();
        for (int i = 0; i < attrs.getLength(); i++) {
            Attr a = (Attr) attrs.item(i);
            if (NAMESPACE.equals(a.getNamespaceURI())) {
                if (!"repeat".equals(a.getLocalName())) {
                    throw new Invalid(path + ": unknown template attribute " + a.getName() + " (only tb:repeat)");
                }
                String v = a.getValue().trim();
                if (!v.equals("${n}") && !(v.matches("\\d{1,6}") && Integer.parseInt(v) <= MAX_REPEAT)) {
                    throw new Invalid(path + ": tb:repeat='" + v + "': expected ${n} or a whole number 0.." + MAX_REPEAT);
                }
            } else {
                params(a.getValue(), path + "/@" + a.getName());
            }
        }
        for (Node c = el.getFirstChild(); c != null; c = c.getNextSibling()) {
            if (c instanceof Element child) {
                check(child, path + "/" + child.getLocalName());
            } else if (c.getNodeType() == Node.TEXT_NODE || c.getNodeType() == Node.CDATA_SECTION_NODE) {
                params(c.getNodeValue(), path);
            }
        }
    }

    private static void params(String text, String path) throws Invalid {
        Matcher m = PARAM.matcher(text);
        while (m.find()) {
            if (!m.group(1).equals("n")) {
                throw new Invalid(path + ": parameter ${" + m.group(1) + "} has no value (the launcher gives every "
                        + "parameter but ${n}: --param " + m.group(1) + "=VALUE)");
            }
        }
    }

    private static DocumentBuilder builder() {
        try {
            DocumentBuilderFactory dbf = DocumentBuilderFactory.newInstance();
            dbf.setNamespaceAware(true);
            dbf.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            dbf.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            dbf.setExpandEntityReferences(false);
            return dbf.newDocumentBuilder();
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException(e);
        }
    }
}
