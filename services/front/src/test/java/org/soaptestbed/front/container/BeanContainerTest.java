package org.soaptestbed.front.container;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BeanContainerTest {

    /** A mutable value object, like the front's CallReply. */
    static final class Box implements Serializable {
        private static final long serialVersionUID = 1L;
        final List<String> items = new ArrayList<>();
    }

    // package-private: the proxy class is then defined in this package and can see Box
    interface Keeper {
        /** Keeps the argument, answers what it kept. */
        Box keep(Box box);

        /** What the bean holds now. */
        Box peek();

        int instanceId();

        void block(long millis);

        void fail();
    }

    static final class KeeperBean implements Keeper, PooledBean {
        private Box kept = new Box();
        private int id;

        @Override
        public void setBeanContext(BeanContext context) {
            id = context.instanceId();
        }

        @Override
        public Box keep(Box box) {
            kept = box;
            return kept;
        }

        @Override
        public Box peek() {
            return kept;
        }

        @Override
        public int instanceId() {
            return id;
        }

        @Override
        public void block(long millis) {
            BeanPoolTest.Demandless.sleep(millis);
        }

        @Override
        public void fail() {
            throw new IllegalStateException("bean failed");
        }
    }

    private final List<String> trace = Collections.synchronizedList(new ArrayList<>());
    private BeanContainer container = new BeanContainer("test");

    @AfterEach
    void close() {
        container.close();
    }

    private Keeper deploy(int poolSize, long timeoutMs, Interceptor... interceptors) {
        container.deploy(new BeanDeployment("Keeper", Keeper.class, KeeperBean::new, poolSize, timeoutMs,
                List.of(interceptors)));
        return container.proxy("Keeper", Keeper.class);
    }

    private Interceptor recording(String name) {
        return call -> {
            trace.add(name + " before, instance " + (call.instance() == null ? "none" : "set"));
            Object result = call.proceed();
            trace.add(name + " after");
            return result;
        };
    }

    @Test
    void arguments_are_copied_into_the_bean() {
        Keeper keeper = deploy(1, 100);
        Box mine = new Box();
        mine.items.add("sent");
        keeper.keep(mine);
        mine.items.add("changed by the caller afterwards");
        assertEquals(List.of("sent"), keeper.peek().items);
    }

    @Test
    void mutating_a_returned_result_does_not_affect_the_bean() {
        Keeper keeper = deploy(1, 100);
        Box sent = new Box();
        sent.items.add("kept");
        Box returned = keeper.keep(sent);
        assertNotSame(sent, returned);
        returned.items.add("changed by the caller");
        returned.items.remove("kept");
        assertEquals(List.of("kept"), keeper.peek().items);
        assertNotSame(keeper.peek(), keeper.peek());      // every result is a fresh copy
    }

    @Test
    void container_interceptors_run_first_then_the_beans_own_in_order() {
        Keeper keeper = deploy(1, 100, recording("A"), recording("B"));
        List<Interceptor> chain = container.chain("Keeper");
        assertInstanceOf(TimingInterceptor.class, chain.get(0));
        assertInstanceOf(ByValueInterceptor.class, chain.get(1));
        assertInstanceOf(PoolInterceptor.class, chain.get(2));
        assertEquals(5, chain.size());

        keeper.peek();
        assertEquals(List.of("A before, instance set", "B before, instance set", "B after", "A after"), trace);
    }

    @Test
    void the_demand_interceptor_runs_inside_the_pool_before_the_method() {
        Interceptor demandLike = call -> {
            trace.add("demand, instance " + (call.instance() == null ? "none" : call.instance().id()));
            return call.proceed();
        };
        Keeper keeper = deploy(1, 100, demandLike);
        assertEquals(1, keeper.instanceId());
        assertEquals(List.of("demand, instance 1"), trace);
    }

    @Test
    void calls_beyond_the_pool_wait_then_fail_with_pool_timeout() throws Exception {
        Keeper keeper = deploy(1, 200);
        CountDownLatch started = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            started.countDown();
            keeper.block(1_500);
        });
        holder.start();
        assertTrue(started.await(5, TimeUnit.SECONDS));
        while (container.pool("Keeper").inUse() == 0 && holder.isAlive()) {
            BeanPoolTest.Demandless.sleep(5);
        }
        long t0 = System.nanoTime();
        assertThrows(PoolTimeoutException.class, keeper::peek);
        long waitedMs = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(waitedMs >= 150 && waitedMs < 1_400, "waited " + waitedMs + " ms for a 200 ms timeout");
        holder.join(5_000);
        assertEquals(0, container.pool("Keeper").inUse());
        keeper.peek();                        // the instance is back
    }

    @Test
    void an_exception_reaches_the_caller_and_the_instance_goes_back_to_the_pool() {
        Keeper keeper = deploy(1, 100);
        IllegalStateException e = assertThrows(IllegalStateException.class, keeper::fail);
        assertEquals("bean failed", e.getMessage());
        assertEquals(0, container.pool("Keeper").inUse());
        assertEquals(1, keeper.instanceId());
    }

    @Test
    void the_timing_interceptor_counts_calls_and_failures_per_method() {
        Keeper keeper = deploy(1, 100);
        keeper.peek();
        keeper.peek();
        assertThrows(IllegalStateException.class, keeper::fail);
        assertEquals(2, container.stats("Keeper").get("peek").calls());
        assertEquals(0, container.stats("Keeper").get("peek").failures());
        assertEquals(1, container.stats("Keeper").get("fail").failures());
    }

    @Test
    void proxies_answer_object_methods_without_a_bean_instance() {
        Keeper keeper = deploy(1, 100);
        assertTrue(keeper.toString().contains("Keeper"));
        assertEquals(keeper, keeper);
        assertEquals(0, container.stats("Keeper").size());
    }

    @Test
    void a_bean_name_is_deployed_once() {
        deploy(1, 100);
        assertThrows(IllegalStateException.class, () -> deploy(1, 100));
        assertThrows(IllegalArgumentException.class, () -> container.proxy("Nobody", Keeper.class));
    }
}
