/** A singleton whose call method is synchronized, called by 8 threads: most of them are
 *  BLOCKED waiting for its monitor (what a jstack of the singleton SOAP client looks like). */
public class Contended {
    static final class SingletonClient {
        static final SingletonClient INSTANCE = new SingletonClient();
        synchronized long call(long x) throws InterruptedException {
            Thread.sleep(5);             // the "SOAP call" made while holding the monitor
            return x + 1;
        }
    }

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 8; i++) {
            Thread t = new Thread(() -> {
                long n = 0;
                try {
                    while (true) n = SingletonClient.INSTANCE.call(n);
                } catch (InterruptedException e) { /* exit */ }
            }, "http-nio-8080-exec-" + (i + 1));
            t.setDaemon(true);
            t.start();
        }
        Thread.sleep(Long.parseLong(args.length > 0 ? args[0] : "8000"));
    }
}
