package org.soaptestbed.front;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.Map;
import javax.naming.InitialContext;
import javax.naming.NameNotFoundException;
import org.apache.catalina.Context;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.soaptestbed.common.Env;
import org.soaptestbed.common.TomcatServer;
import org.soaptestbed.front.ejb.CallReply;
import org.soaptestbed.front.ejb.SegmentService;

/** The session bean is found by name in the front's JNDI environment, as a page finds it. */
class FrontNamingTest {

    private static TomcatServer server;

    @BeforeAll
    static void start() throws Exception {
        FrontConfig config = FrontConfig.fromEnv(new Env(Map.of(
                "PORT", String.valueOf(freePort()),
                "BEAN_POOL_SIZE", "3",
                "CLONES_URL", "http://127.0.0.1:9")));
        server = FrontApp.create(config);
        server.start(config.describe());
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.stop();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Runs {@code body} on this thread bound to the web application, as a request thread is. */
    private static Object inApplication(NamingCall body) throws Exception {
        Context ctx = server.context();
        ClassLoader previous = ctx.bind(false, null);
        try {
            return body.run();
        } finally {
            ctx.unbind(false, previous);
        }
    }

    @FunctionalInterface
    interface NamingCall {
        Object run() throws Exception;
    }

    @Test
    void the_session_bean_is_looked_up_by_name_and_served_by_a_pooled_instance() throws Exception {
        Object found = inApplication(() -> new InitialContext().lookup("java:comp/env/ejb/SegmentService"));
        SegmentService service = assertInstanceOf(SegmentService.class, found);
        CallReply reply = service.visit();
        assertEquals("SegmentService", reply.getBeanName());
        assertTrue(reply.getBeanInstance() >= 1 && reply.getBeanInstance() <= 3, "instance " + reply.getBeanInstance());
    }

    @Test
    void an_unknown_bean_name_is_not_found() {
        assertThrows(NameNotFoundException.class,
                () -> inApplication(() -> new InitialContext().lookup("java:comp/env/ejb/NoSuchBean")));
    }

    @Test
    void every_lookup_answers_a_proxy_of_the_same_pool() throws Exception {
        Object a = inApplication(() -> new InitialContext().lookup("java:comp/env/ejb/SegmentService"));
        Object b = inApplication(() -> new InitialContext().lookup("java:comp/env/ejb/SegmentService"));
        assertNotNull(a);
        assertEquals(((SegmentService) a).visit().getBeanName(), ((SegmentService) b).visit().getBeanName());
    }
}
