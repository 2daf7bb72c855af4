package org.soaptestbed.front.container;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A small EJB-like container for stateless session beans.
 *
 * <p>Callers never hold a bean instance. They get a proxy of the business interface (through
 * JNDI, see {@link BeanObjectFactory}); every call on it runs the interceptor chain
 *
 * <pre>
 *   timing -> by-value copy -> pool acquire -> the bean's own interceptors (e.g. demand) -> instance
 * </pre>
 *
 * so each call is timed, its arguments and result are copied, and it is served by one
 * instance of a bounded pool, waiting for a free one up to the pool's timeout.
 *
 * <p>A container is published under an id so that the JNDI object factory, which Tomcat
 * instantiates by class name, can find it.
 */
public final class BeanContainer implements AutoCloseable {

    private static final Map<String, BeanContainer> PUBLISHED = new ConcurrentHashMap<>();

    private final String id;
    private final Map<String, Deployed> beans = new ConcurrentHashMap<>();

    private record Deployed(BeanDeployment deployment, BeanPool pool, TimingInterceptor timing,
                            List<Interceptor> chain) {
    }

    public BeanContainer(String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }

    /** Creates the bean's pool (all its instances) and its interceptor chain. */
    public void deploy(BeanDeployment d) {
        BeanPool pool = new BeanPool(d.name(), d.poolSize(), d.poolTimeoutMs(), d.factory());
        TimingInterceptor timing = new TimingInterceptor();
        List<Interceptor> chain = new ArrayList<>();
        chain.add(timing);
        chain.add(new ByValueInterceptor());
        chain.add(new PoolInterceptor(pool));
        chain.addAll(d.interceptors());
        if (beans.putIfAbsent(d.name(), new Deployed(d, pool, timing, List.copyOf(chain))) != null) {
            throw new IllegalStateException(id + ": a bean named " + d.name() + " is already deployed");
        }
    }

    /** A client view of the bean: a new proxy of its business interface. */
    public <T> T proxy(String beanName, Class<T> type) {
        Deployed bean = deployed(beanName);
        Class<?> iface = bean.deployment().businessInterface();
        if (!type.isAssignableFrom(iface)) {
            throw new ClassCastException(beanName + " implements " + iface.getName() + ", not " + type.getName());
        }
        return type.cast(proxy(bean));
    }

    /** A client view of the bean, typed by its deployment's business interface. */
    public Object proxy(String beanName) {
        return proxy(deployed(beanName));
    }

    private Object proxy(Deployed bean) {
        Class<?> iface = bean.deployment().businessInterface();
        String name = bean.deployment().name();
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getDeclaringClass() == Object.class) {
                return objectMethod(proxy, method, args, name);
            }
            return new Invocation(name, method, args, bean.chain()).proceed();
        };
        return Proxy.newProxyInstance(iface.getClassLoader(), new Class<?>[] {iface}, handler);
    }

    private static Object objectMethod(Object proxy, Method method, Object[] args, String name) {
        switch (method.getName()) {
            case "equals":
                return proxy == args[0];
            case "hashCode":
                return System.identityHashCode(proxy);
            default:
                return "proxy of bean " + name;
        }
    }

    public BeanPool pool(String beanName) {
        return deployed(beanName).pool();
    }

    /** Business method -> call counters of one bean. */
    public Map<String, CallStats> stats(String beanName) {
        return Collections.unmodifiableMap(deployed(beanName).timing().stats());
    }

    /** The chain of one bean, outermost first (for tests and diagnostics). */
    public List<Interceptor> chain(String beanName) {
        return deployed(beanName).chain();
    }

    public List<String> beanNames() {
        return List.copyOf(beans.keySet());
    }

    /** One line per bean and method, for the log at shutdown. */
    public Map<String, String> summary() {
        Map<String, String> lines = new LinkedHashMap<>();
        beans.forEach((name, bean) -> {
            lines.put(name + ".pool", "size=" + bean.pool().size() + " timeouts=" + bean.pool().timeouts());
            bean.timing().stats().forEach((method, s) -> lines.put(name + "." + method, s.toString()));
        });
        return lines;
    }

    private Deployed deployed(String beanName) {
        Deployed bean = beans.get(beanName);
        if (bean == null) {
            throw new IllegalArgumentException(id + ": no bean named " + beanName + " (deployed: " + beans.keySet() + ")");
        }
        return bean;
    }

    /** Makes this container findable by {@link #published}. */
    public BeanContainer publish() {
        if (PUBLISHED.putIfAbsent(id, this) != null) {
            throw new IllegalStateException("a container with id " + id + " is already published");
        }
        return this;
    }

    /** The published container with this id, or null. */
    public static BeanContainer published(String id) {
        return PUBLISHED.get(id);
    }

    /** Withdraws the container from {@link #published}. */
    @Override
    public void close() {
        PUBLISHED.remove(id, this);
    }
}
