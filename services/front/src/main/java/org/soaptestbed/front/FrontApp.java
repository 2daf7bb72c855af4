package org.soaptestbed.front;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.catalina.Context;
import org.apache.catalina.Lifecycle;
import org.apache.catalina.WebResourceRoot;
import org.apache.catalina.Wrapper;
import org.apache.catalina.startup.Tomcat;
import org.apache.catalina.webresources.DirResourceSet;
import org.apache.catalina.webresources.JarResourceSet;
import org.apache.catalina.webresources.StandardRoot;
import org.apache.jasper.servlet.JasperInitializer;
import org.apache.tomcat.util.scan.StandardJarScanner;
import org.soaptestbed.common.Logs;
import org.soaptestbed.common.TomcatServer;
import org.soaptestbed.front.container.BeanContainer;
import org.soaptestbed.front.container.BeanDeployment;
import org.soaptestbed.front.container.BeanNaming;
import org.soaptestbed.front.container.DemandInterceptor;
import org.soaptestbed.front.ejb.SegmentService;
import org.soaptestbed.front.ejb.SegmentServiceBean;
import org.soaptestbed.front.invoker.Invoker;
import org.soaptestbed.front.web.FixedContentType;
import org.soaptestbed.front.web.SegmentOneDemand;

/**
 * Assembles the front on an embedded Tomcat:
 *
 * <pre>
 * /                   DefaultServlet: the landing page META-INF/resources/index.html (welcome file)
 * /seg/1              DefaultServlet: the static file META-INF/resources/seg/1 of front.jar
 * /seg/2 ... /seg/5   the JSPs, precompiled at build time (org.soaptestbed.front.jsp.*)
 * /WEB-INF/error.jsp  their error page (forwarded to, never requested)
 * /health             java-common's TomcatServer
 * </pre>
 *
 * and the EJB-like container with the SegmentService bean, declared in the context's JNDI
 * environment as {@code java:comp/env/ejb/SegmentService}.
 */
public final class FrontApp {

    private static final String JSP_PACKAGE = "org.soaptestbed.front.jsp.";
    /** Content-Type of the static pages; their files are UTF-8. */
    static final String HTML = "text/html;charset=utf-8";
    /** URL -> precompiled JSP servlet class (JspC names /seg2.jsp seg2_jsp). */
    static final Map<String, String> PAGES = Map.of(
            "/seg/2", JSP_PACKAGE + "seg2_jsp",
            "/seg/3", JSP_PACKAGE + "seg3_jsp",
            "/seg/4", JSP_PACKAGE + "seg4_jsp",
            "/seg/5", JSP_PACKAGE + "seg5_jsp",
            "/WEB-INF/error.jsp", JSP_PACKAGE + "error_jsp");

    private FrontApp() {
    }

    /** A server ready to {@code start(config.describe())}; its container is published on start. */
    public static TomcatServer create(FrontConfig config) {
        Demands.install(config.seg2(), config.seg3());
        BeanContainer container = new BeanContainer("front");
        Invoker invoker = new Invoker(config.clonesUrl(), config.invokerTimeout(), config.invoker());
        container.deploy(new BeanDeployment(SegmentService.NAME, SegmentService.class,
                () -> new SegmentServiceBean(invoker), config.beanPoolSize(), config.beanPoolTimeoutMs(),
                List.of(new DemandInterceptor(config.seg4()))));

        TomcatServer server = new TomcatServer("front", config.tomcat());
        server.tomcat().enableNaming();
        Context ctx = server.context();
        BeanNaming.declare(ctx, container, SegmentService.NAME, SegmentService.class);
        ctx.addLifecycleListener(event -> {
            if (Lifecycle.BEFORE_START_EVENT.equals(event.getType())) {
                container.publish();
            } else if (Lifecycle.AFTER_STOP_EVENT.equals(event.getType())) {
                // usually inside the SIGTERM hook, when java.util.logging may be shut down already
                container.summary().forEach((what, stats) -> Logs.atShutdown(FrontApp.class, what + ": " + stats));
                container.close();
            }
        });
        mountStaticFiles(ctx);
        addPages(ctx);
        // /seg/1 is a file without an extension, so the DefaultServlet derives no type for it
        server.addFilter("seg1-content-type", new FixedContentType(HTML), "/seg/1");
        if (!config.seg1().isZero()) {      // segment ①'s emulated demand, on every path
            server.addFilter("seg1-demand", new SegmentOneDemand(config.seg1()), "/seg/*");
        }
        return server;
    }

    private static void addPages(Context ctx) {
        // Jasper's runtime (JspFactory, InstanceManager) for the precompiled pages; no JspServlet,
        // so nothing is ever compiled at run time. There are no tag libraries to scan for.
        StandardJarScanner scanner = new StandardJarScanner();
        scanner.setScanClassPath(false);
        scanner.setScanManifest(false);
        ctx.setJarScanner(scanner);
        ctx.addServletContainerInitializer(new JasperInitializer(), null);

        Wrapper files = Tomcat.addServlet(ctx, "default", "org.apache.catalina.servlets.DefaultServlet");
        files.addInitParameter("listings", "false");
        files.addInitParameter("fileEncoding", "UTF-8");   // not the platform's: Java 17 may default to ASCII
        files.setLoadOnStartup(1);
        ctx.addServletMappingDecoded("/", "default");
        ctx.addMimeMapping("html", HTML);                   // an embedded context has no MIME table
        ctx.addWelcomeFile("index.html");                   // "/" serves the landing page

        PAGES.forEach((path, servletClass) -> {
            String name = servletClass.substring(JSP_PACKAGE.length());
            Wrapper page = Tomcat.addServlet(ctx, name, servletClass);
            page.setLoadOnStartup(2);                 // initialised at start, not by the first request
            ctx.addServletMappingDecoded(path, name);
        });
    }

    /**
     * The static pages: META-INF/resources of front.jar (or of target/classes, in unit tests).
     * /seg/1 is a file named "1", so the DefaultServlet finds no extension to derive a
     * Content-Type from; a filter on exactly that path sets it (naming the file seg/1.html
     * would need a redirect or a rewrite in front of segment ①).
     */
    private static void mountStaticFiles(Context ctx) {
        Path code;
        try {
            code = Path.of(FrontApp.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot locate the front's own classes", e);
        }
        WebResourceRoot root = new StandardRoot(ctx);
        if (Files.isDirectory(code)) {
            root.addPreResources(new DirResourceSet(root, "/", code.resolve("META-INF/resources").toString(), "/"));
        } else {
            root.addPreResources(new JarResourceSet(root, "/", code.toString(), "/META-INF/resources"));
        }
        ctx.setResources(root);
    }
}
