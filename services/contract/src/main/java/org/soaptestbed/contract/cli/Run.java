package org.soaptestbed.contract.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.axis2.AxisFault;
import org.apache.axis2.client.Options;
import org.apache.axis2.context.ConfigurationContext;
import org.apache.axis2.kernel.http.HTTPConstants;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.core5.http.impl.EnglishReasonPhraseCatalog;
import org.soaptestbed.contract.v1.TestbedServiceStub;

/**
 * K calls over C worker threads. Each worker owns a generated stub and an HTTP client with
 * one kept-alive connection; workers take call numbers from a shared counter until K calls
 * were made, so every call is made exactly once. Stubs and connections-to-be are set up
 * before the clock starts.
 */
final class Run {

    /** What a run measured. Latencies are per call, in call-number order. */
    record Result(int ok, int mismatches, int faults, String firstFault, Outcome sample,
                  Long requestBytes, Long responseBytes, double seconds, long[] latencyNanos,
                  int connections) {
        int errors() {
            return mismatches + faults;
        }
    }

    private final CallOptions options;
    private final ConfigurationContext axis;
    private final long[] latencies;
    private final AtomicInteger nextCall = new AtomicInteger();
    private final AtomicInteger ok = new AtomicInteger();
    private final AtomicInteger mismatches = new AtomicInteger();
    private final AtomicInteger faults = new AtomicInteger();
    private final AtomicReference<String> firstFault = new AtomicReference<>();
    private final AtomicReference<Outcome> firstOk = new AtomicReference<>();
    private final AtomicReference<Outcome> firstMismatch = new AtomicReference<>();
    private final AtomicReference<long[]> firstBodyBytes = new AtomicReference<>();

    private Run(CallOptions options, ConfigurationContext axis) {
        this.options = options;
        this.axis = axis;
        this.latencies = new long[options.calls()];
    }

    static Result execute(CallOptions options, ConfigurationContext axis) throws Exception {
        return new Run(options, axis).go();
    }

    private final class Worker implements Runnable {
        final CountingHttpClient.Counter counter = new CountingHttpClient.Counter();
        final CloseableHttpClient http = CountingHttpClient.create(counter);
        final TestbedServiceStub stub;
        final Exchange exchange;
        final CountDownLatch start;

        Worker(CountDownLatch start) throws AxisFault {
            this.start = start;
            stub = new TestbedServiceStub(axis, options.endpoint());
            Options o = stub._getServiceClient().getOptions();
            o.setProperty(HTTPConstants.CACHED_HTTP_CLIENT, http);
            o.setTimeOutInMilliSeconds(CountingHttpClient.READ_TIMEOUT.toMilliseconds());
            exchange = Exchange.of(options.op(), options.n(), options.seed(),
                    options.cpuMicros(), options.waitMicros());
        }

        @Override
        public void run() {
            try {
                start.await();
            } catch (InterruptedException e) {
                return;
            }
            for (int i = nextCall.getAndIncrement(); i < latencies.length; i = nextCall.getAndIncrement()) {
                counter.reset();
                long t0 = System.nanoTime();
                try {
                    Outcome out = exchange.call(stub);
                    latencies[i] = System.nanoTime() - t0;
                    firstBodyBytes.compareAndSet(null, new long[] {counter.requestBytes, counter.responseBytes});
                    if (out.checked()) {
                        ok.incrementAndGet();
                        firstOk.compareAndSet(null, out);
                    } else {
                        mismatches.incrementAndGet();
                        firstMismatch.compareAndSet(null, out);
                    }
                } catch (Exception | LinkageError e) {
                    latencies[i] = System.nanoTime() - t0;
                    faults.incrementAndGet();
                    if (firstFault.get() == null) {
                        firstFault.compareAndSet(null, describe(e, counter.status, counter.reason));
                    }
                }
            }
        }

        void close() {
            try {
                stub._getServiceClient().cleanup();
                http.close();
            } catch (Exception e) {
                // closing at exit: nothing left to do
            }
        }
    }

    private Result go() throws Exception {
        int n = Math.min(options.connections(), options.calls());
        CountDownLatch start = new CountDownLatch(1);
        List<Worker> workers = new ArrayList<>(n);
        List<Thread> threads = new ArrayList<>(n);
        try {
            for (int i = 0; i < n; i++) {
                Worker w = new Worker(start);
                workers.add(w);
                Thread t = new Thread(w, "call-" + i);
                t.setDaemon(true);
                threads.add(t);
                t.start();
            }
            long t0 = System.nanoTime();
            start.countDown();
            for (Thread t : threads) {
                t.join();
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            Outcome sample = firstMismatch.get() != null ? firstMismatch.get() : firstOk.get();
            long[] bytes = firstBodyBytes.get();
            return new Result(ok.get(), mismatches.get(), faults.get(), firstFault.get(), sample,
                    bytes == null ? null : bytes[0], bytes == null ? null : bytes[1],
                    seconds, latencies, n);
        } finally {
            workers.forEach(Worker::close);
        }
    }

    /**
     * Like the gSOAP client: "Client: reason" for a SOAP fault, "HTTP 413: reason" for an
     * HTTP error that is not a SOAP fault, "transport: reason" for anything else.
     */
    static String describe(Throwable e, int httpStatus, String httpReason) {
        boolean soapFault = e instanceof AxisFault f && f.getFaultCode() != null
                && !f.getFaultCode().getLocalPart().isEmpty() && (httpStatus == 500 || httpStatus == 0);
        if (soapFault) {
            return ((AxisFault) e).getFaultCode().getLocalPart() + ": " + e.getMessage();
        }
        if (httpStatus >= 300) {
            String reason = httpReason.isEmpty()
                    ? EnglishReasonPhraseCatalog.INSTANCE.getReason(httpStatus, Locale.ENGLISH) : httpReason;
            return "HTTP " + httpStatus + ": " + (reason == null ? rootMessage(e) : reason);
        }
        return "transport: " + rootMessage(e);
    }

    static String describe(Throwable e) {
        return describe(e, 0, "");
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        for (int i = 0; i < 20 && root.getCause() != null && root.getCause() != root; i++) {
            root = root.getCause();
        }
        String message = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        return message.replaceAll("\\s+", " ").trim();
    }
}
