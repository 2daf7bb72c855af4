package org.soaptestbed.front.container;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BeanPoolTest {

    static final class Plain implements PooledBean {
        BeanContext context;

        @Override
        public void setBeanContext(BeanContext context) {
            this.context = context;
        }
    }

    @Test
    void creates_all_instances_up_front_numbered_from_one_with_their_context() {
        BeanPool pool = new BeanPool("Plain", 3, 100, Plain::new);
        Set<Integer> ids = new HashSet<>();
        BeanPool.Instance[] taken = new BeanPool.Instance[3];
        for (int i = 0; i < 3; i++) {
            taken[i] = pool.acquire();
            ids.add(taken[i].id());
            Plain bean = (Plain) taken[i].bean();
            assertNotNull(bean.context);
            assertEquals(taken[i].id(), bean.context.instanceId());
            assertEquals("Plain", bean.context.beanName());
        }
        assertEquals(Set.of(1, 2, 3), ids);
        assertEquals(3, pool.inUse());
        for (BeanPool.Instance instance : taken) {
            pool.release(instance);
        }
        assertEquals(0, pool.inUse());
    }

    @Test
    void a_call_beyond_the_pool_size_waits_the_timeout_then_fails() {
        BeanPool pool = new BeanPool("Plain", 2, 150, Plain::new);
        BeanPool.Instance a = pool.acquire();
        pool.acquire();
        long t0 = System.nanoTime();
        PoolTimeoutException e = assertThrows(PoolTimeoutException.class, pool::acquire);
        long waitedMs = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(waitedMs >= 100, "gave up after " + waitedMs + " ms, before the 150 ms timeout");
        assertTrue(e.getMessage().contains("BEAN_POOL_TIMEOUT_MS=150"), e.getMessage());
        assertEquals(1, pool.timeouts());

        pool.release(a);                       // a free instance serves the next call at once
        assertEquals(a.id(), pool.acquire().id());
    }

    @Test
    void a_waiting_call_gets_the_instance_released_meanwhile() throws Exception {
        BeanPool pool = new BeanPool("Plain", 1, 5_000, Plain::new);
        BeanPool.Instance only = pool.acquire();
        Thread releaser = new Thread(() -> {
            Demandless.sleep(100);
            pool.release(only);
        });
        releaser.start();
        assertEquals(only.id(), pool.acquire().id());
        releaser.join(5_000);
    }

    @Test
    void most_recently_released_instance_is_reused_first() {
        BeanPool pool = new BeanPool("Plain", 3, 100, Plain::new);
        BeanPool.Instance a = pool.acquire();
        BeanPool.Instance b = pool.acquire();
        pool.release(a);
        pool.release(b);
        assertEquals(b.id(), pool.acquire().id());
    }

    @Test
    void refuses_an_empty_pool() {
        assertThrows(IllegalArgumentException.class, () -> new BeanPool("Plain", 0, 100, Plain::new));
    }

    /** Sleeping in a test thread without checked exceptions. */
    static final class Demandless {
        static void sleep(long ms) {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
