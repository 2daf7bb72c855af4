package org.soaptestbed.axis;

import jakarta.servlet.ServletConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.apache.axis2.AxisFault;
import org.apache.axis2.context.ConfigurationContext;
import org.apache.axis2.context.MessageContext;
import org.apache.axis2.description.AxisService;
import org.apache.axis2.transport.http.AxisServlet;

/**
 * Axis2's servlet, mounted at {@code /axis} and serving exactly one service:
 *
 * <ul>
 * <li>{@code POST /axis}: every SOAP request goes to TestbedService (the servlet sets the
 *     service on the message context, so Axis2's /services/&lt;name&gt; URL convention is not
 *     needed); the operation is found by SOAPAction, else by the body element.
 * <li>{@code GET /axis?wsdl}: the contract WSDL with the caller's address, not Axis2's
 *     generated one. Other GETs, PUT and DELETE are refused (no listing pages, no REST).
 * <li>A request Axis2 cannot or should not process — neither {@code text/xml} nor an MTOM
 *     {@code multipart/related} one ({@link LimitedMtomBuilder}) — gets a SOAP {@code Client}
 *     fault with 415; failures are answered by {@link Faults}.
 * </ul>
 */
final class TestbedAxisServlet extends AxisServlet {
    private static final long serialVersionUID = 1L;

    private final transient ConfigurationContext axis;
    private final transient AxisService service;
    private final transient ContractWsdl wsdl;

    TestbedAxisServlet(ConfigurationContext axis, AxisService service, ContractWsdl wsdl) {
        this.axis = axis;
        this.service = service;
        this.wsdl = wsdl;
    }

    @Override
    public void init(ServletConfig config) throws ServletException {
        // AxisServlet takes a ready ConfigurationContext from this attribute instead of
        // building one from WEB-INF.
        config.getServletContext().setAttribute(CONFIGURATION_CONTEXT, axis);
        super.init(config);
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        if (!wantsWsdl(req)) {
            refuse(resp, "GET " + req.getRequestURI() + " serves only ?wsdl; SOAP requests are POSTed");
            return;
        }
        String host = req.getHeader("Host");
        if (host == null || host.isBlank()) {
            host = req.getServerName() + ":" + req.getServerPort();
        }
        byte[] body = wsdl.forEndpoint(host.trim(), req.getRequestURI());
        resp.setContentType("text/xml;charset=utf-8");
        resp.setContentLength(body.length);
        resp.getOutputStream().write(body);
    }

    private static boolean wantsWsdl(HttpServletRequest req) {
        String query = req.getQueryString();
        if (query == null) {
            return false;
        }
        for (String part : query.split("&")) {
            String name = part.split("=", 2)[0];
            if (name.equalsIgnoreCase("wsdl")) {
                return true;
            }
        }
        return false;
    }

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp)
            throws ServletException, IOException {
        String type = req.getContentType();
        String media = type == null ? "" : type.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
        if (!media.equals("text/xml") && !media.equals("multipart/related")) {
            writeClientFault(resp, HttpServletResponse.SC_UNSUPPORTED_MEDIA_TYPE,
                    "this service speaks SOAP 1.1: Content-Type must be text/xml (or multipart/related "
                            + "for MTOM), got " + (type == null ? "none" : "'" + type + "'"));
            return;
        }
        super.doPost(req, resp);
    }

    @Override
    protected void doPut(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        refuse(resp, "PUT is not supported; SOAP requests are POSTed");
    }

    @Override
    protected void doDelete(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        refuse(resp, "DELETE is not supported; SOAP requests are POSTed");
    }

    @Override
    protected MessageContext createMessageContext(HttpServletRequest req, HttpServletResponse resp,
                                                  boolean invocationType) throws IOException {
        MessageContext mc = super.createMessageContext(req, resp, invocationType);
        mc.setAxisService(service);   // /axis is TestbedService, whatever the URL says
        return mc;
    }

    @Override
    protected void handleFault(MessageContext mc, OutputStream out, AxisFault e) throws AxisFault {
        super.handleFault(mc, out, Faults.forResponse(mc, e));
    }

    private static void refuse(HttpServletResponse resp, String reason) throws IOException {
        byte[] body = (reason + "\n").getBytes(StandardCharsets.UTF_8);
        resp.setStatus(HttpServletResponse.SC_METHOD_NOT_ALLOWED);
        resp.setHeader("Allow", "POST, GET");
        resp.setContentType("text/plain;charset=utf-8");
        resp.setContentLength(body.length);
        resp.getOutputStream().write(body);
    }

    /** A SOAP 1.1 Client fault written directly, for requests Axis2 is not given. */
    private static void writeClientFault(HttpServletResponse resp, int status, String reason)
            throws IOException {
        String xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
                + "<soapenv:Envelope xmlns:soapenv=\"http://schemas.xmlsoap.org/soap/envelope/\">"
                + "<soapenv:Body><soapenv:Fault><faultcode>soapenv:Client</faultcode><faultstring>"
                + reason.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
                + "</faultstring></soapenv:Fault></soapenv:Body></soapenv:Envelope>";
        byte[] body = xml.getBytes(StandardCharsets.UTF_8);
        resp.setStatus(status);
        resp.setContentType("text/xml;charset=utf-8");
        resp.setContentLength(body.length);
        resp.getOutputStream().write(body);
    }
}
