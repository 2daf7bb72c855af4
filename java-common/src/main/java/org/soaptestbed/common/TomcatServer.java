package org.soaptestbed.common;

import jakarta.servlet.Filter;
import jakarta.servlet.Servlet;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.management.ObjectName;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.Wrapper;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.core.StandardContext;
import org.apache.catalina.startup.Tomcat;
import org.apache.coyote.http11.Http11NioProtocol;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.soaptestbed.common.trace.TraceFilter;
import org.soaptestbed.common.trace.Tracer;

/**
 * One embedded Tomcat 10.1 for one tier: an NIO connector on BIND:PORT configured from
 * {@link TomcatSettings}, a root context ("") that always holds {@code GET /health} and the
 * {@link BodyLimitFilter}, and a graceful stop on SIGTERM: out of the balancer's rotation first
 * ({@link Drain}), then no new connections, then the requests in flight finish.
 *
 * <p>The caller adds its own servlets and filters before {@link #start}. The root context
 * is a plain {@link Context} with a real document base directory, so a tier that needs JSP
 * can add Jasper's initializer and servlet to {@link #context()} itself; nothing here
 * assumes or prevents it.
 */
public final class TomcatServer {

    private static final Logger LOG = Logger.getLogger(TomcatServer.class.getName());

    private final String name;
    private final TomcatSettings settings;
    private final Tomcat tomcat = new Tomcat();
    private final Connector connector;
    private final Context context;
    private final Path baseDir;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final Drain drain = new Drain();
    private final Served served = new Served();
    private volatile boolean stopping;
    private ObjectName queueBean;

    /** A server whose context serves no static files (an empty temporary document base). */
    public TomcatServer(String name, TomcatSettings settings) {
        this(name, settings, null);
    }

    /**
     * @param name    the tier's name, for logs and the temporary directory
     * @param docBase the context's document base (static files, JSPs), or null for none
     */
    public TomcatServer(String name, TomcatSettings settings, File docBase) {
        this.name = name;
        this.settings = settings;
        Logs.quietLibraries();
        Thread json = new Thread(Json::warmUp, name + "-json-warm-up");   // beside Tomcat's own start-up
        json.setDaemon(true);
        json.start();
        try {
            // Tomcat's work files go to a private temporary folder, never the current directory.
            baseDir = Files.createTempDirectory("tomcat-" + name + "-");
            Path emptyDocs = Files.createDirectories(baseDir.resolve("docs"));
            tomcat.setBaseDir(baseDir.toString());
            connector = newConnector(settings);
            tomcat.setConnector(connector);
            tomcat.getHost().setAutoDeploy(false);
            String docs = (docBase != null ? docBase.toPath() : emptyDocs).toAbsolutePath().toString();
            context = tomcat.addContext("", docs);
            if (context instanceof StandardContext std) {
                // the JVM exits with the server: no class loader leak hunting (and its warnings)
                std.setClearReferencesObjectStreamClassCaches(false);
                std.setClearReferencesThreadLocals(false);
                std.setClearReferencesRmiTargets(false);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create Tomcat's temporary directory", e);
        }
        addServlet("health", new HealthServlet(drain), "/health");
        addServlet("served", new ServedServlet(served), "/served");
        if (Tracer.enabled()) {       // first: the server span covers every filter after it
            addFilter("trace", new TraceFilter(), "/*");
        }
        addFilter("drain", new DrainFilter(drain, served), "/*");
        addFilter("body-limit", new BodyLimitFilter(settings.maxMessageBytes(), settings.bodyTimeoutMs()), "/*");
    }

    private static Connector newConnector(TomcatSettings s) {
        Connector c = new Connector(Http11NioProtocol.class.getName());
        c.setPort(s.port());
        c.setThrowOnFailure(true);        // a port in use must stop the tier, not be logged
        Http11NioProtocol p = (Http11NioProtocol) c.getProtocolHandler();
        try {
            p.setAddress(InetAddress.getByName(s.bind()));
        } catch (UnknownHostException e) {
            throw new Env.BadValue("BIND", s.bind(), "an IP address or resolvable host name");
        }
        p.setMaxThreads(s.maxThreads());
        p.setMinSpareThreads(s.minSpareThreads());
        p.setAcceptCount(s.acceptCount());
        p.setMaxConnections(s.maxConnections());
        p.setConnectionTimeout(s.connectionTimeoutMs());
        p.setKeepAliveTimeout(s.keepAliveTimeoutMs());
        p.setMaxKeepAliveRequests(s.maxKeepAliveRequests());
        // a body the application did not read (an early fault, a refusal) is not swallowed:
        // the connection is closed instead, so a client trickling it cannot hold a thread
        p.setMaxSwallowSize(0);
        return c;
    }

    /** The root context, for servlets, filters, listeners, initializers (e.g. JSP). */
    public Context context() {
        return context;
    }

    /** The embedded Tomcat itself, for what this class does not cover. */
    public Tomcat tomcat() {
        return tomcat;
    }

    public TomcatSettings settings() {
        return settings;
    }

    /** Adds a servlet, initialised at start: a tier that answers /health is ready to serve. */
    public TomcatServer addServlet(String servletName, Servlet servlet, String... patterns) {
        Wrapper wrapper = Tomcat.addServlet(context, servletName, servlet);
        wrapper.setAsyncSupported(true);
        wrapper.setLoadOnStartup(1);
        for (String pattern : patterns) {
            context.addServletMappingDecoded(pattern, servletName);
        }
        return this;
    }

    public TomcatServer addFilter(String filterName, Filter filter, String... patterns) {
        FilterDef def = new FilterDef();
        def.setFilterName(filterName);
        def.setFilter(filter);
        def.setAsyncSupported("true");
        context.addFilterDef(def);
        FilterMap map = new FilterMap();
        map.setFilterName(filterName);
        for (String pattern : patterns) {
            map.addURLPatternDecoded(pattern);
        }
        context.addFilterMap(map);
        return this;
    }

    /**
     * Starts listening, installs the SIGTERM hook and logs one line with the effective
     * configuration: the Tomcat settings followed by {@code tierSettings}.
     */
    public void start(Map<String, ?> tierSettings) throws LifecycleException {
        long t0 = System.nanoTime();
        tomcat.start();
        if (connector.getState() != LifecycleState.STARTED || connector.getLocalPort() <= 0) {
            tomcat.stop();
            tomcat.destroy();
            throw new LifecycleException("cannot listen on " + settings.bind() + ":" + settings.port());
        }
        Runtime.getRuntime().addShutdownHook(new Thread(this::stop, name + "-shutdown"));
        queueBean = Jmx.register("RequestQueue", Map.of("port", String.valueOf(connector.getLocalPort())),
                new RequestQueue(() -> connector.getProtocolHandler().getExecutor()));
        Map<String, Object> all = new LinkedHashMap<>(settings.describe());
        all.put("PORT", connector.getLocalPort());
        all.putAll(tierSettings);
        String config = all.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(" "));
        LOG.info(() -> String.format("%s listening on http://%s:%d/ (up %d ms after JVM start, tomcat %d ms) %s",
                name, settings.bind(), connector.getLocalPort(), uptimeMs(),
                (System.nanoTime() - t0) / 1_000_000, config));
    }

    /** The port actually bound (differs from PORT only when PORT was 0, in tests). */
    public int port() {
        return connector.getLocalPort();
    }

    /** Blocks until {@link #stop} ran (SIGTERM or a caller). */
    public void awaitStop() throws InterruptedException {
        stopped.await();
    }

    /**
     * Leaves the balancer's rotation ({@link Drain}: ≤ 8 s), stops accepting, lets requests in
     * progress finish (Tomcat's executor waits ≤ 5 s), exits.
     */
    public synchronized void stop() {
        if (stopping) {
            return;
        }
        stopping = true;
        drain.begin();
        long drained = drain.await();
        Logs.atShutdown(TomcatServer.class, name + " stopping" + (drained > 0 ? " (left the balancer's rotation in "
                + drained + " ms)" : ""));
        try {
            tomcat.stop();
            tomcat.destroy();
            Logs.atShutdown(TomcatServer.class, name + " stopped");
        } catch (LifecycleException e) {
            Logs.atShutdown(TomcatServer.class, name + ": error while stopping: " + e);
        } finally {
            Jmx.unregister(queueBean);
            deleteQuietly(baseDir);
            stopped.countDown();
        }
    }

    private static long uptimeMs() {
        return ProcessHandle.current().info().startInstant()
                .map(t -> java.time.Duration.between(t, java.time.Instant.now()).toMillis())
                .orElse(-1L);
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // a leftover temporary folder is harmless
        }
    }
}
