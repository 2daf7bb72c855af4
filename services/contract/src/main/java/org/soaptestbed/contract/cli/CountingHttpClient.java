package org.soaptestbed.contract.cli;

import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.io.SocketConfig;
import org.apache.hc.core5.http.io.entity.HttpEntityWrapper;
import org.apache.hc.core5.util.Timeout;

/**
 * The HTTP client of one worker thread: exactly one kept-alive connection (a pool of one),
 * handed to the Axis2 stub as its cached client, and counting the request and response
 * body bytes of the call in progress.
 */
final class CountingHttpClient {

    /** Longest wait for a response's bytes: a work call may take 60 s CPU plus 60 s wait. */
    static final Timeout READ_TIMEOUT = Timeout.ofSeconds(150);
    static final Timeout CONNECT_TIMEOUT = Timeout.ofSeconds(10);

    /** Body bytes and HTTP status of the current call, reset by the worker before each call. */
    static final class Counter {
        long requestBytes;
        long responseBytes;
        int status;             // 0: no response
        String reason = "";

        void reset() {
            requestBytes = 0;
            responseBytes = 0;
            status = 0;
            reason = "";
        }
    }

    private CountingHttpClient() {
    }

    static CloseableHttpClient create(Counter counter) {
        return HttpClients.custom()
                .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
                        .setMaxConnTotal(1)
                        .setMaxConnPerRoute(1)
                        .setDefaultSocketConfig(SocketConfig.custom()
                                .setSoTimeout(READ_TIMEOUT).setTcpNoDelay(true).build())
                        .setDefaultConnectionConfig(ConnectionConfig.custom()
                                .setConnectTimeout(CONNECT_TIMEOUT).build())
                        .build())
                .disableAutomaticRetries()      // a failed call is counted, never silently resent
                .disableCookieManagement()
                .addRequestInterceptorLast((request, details, context) -> {
                    if (request instanceof ClassicHttpRequest r && r.getEntity() != null) {
                        r.setEntity(new CountedRequestBody(r.getEntity(), counter));
                    }
                })
                .addResponseInterceptorLast((response, details, context) -> {
                    counter.status = response.getCode();
                    counter.reason = response.getReasonPhrase() == null ? "" : response.getReasonPhrase();
                    if (response instanceof ClassicHttpResponse r && r.getEntity() != null) {
                        r.setEntity(new CountedResponseBody(r.getEntity(), counter));
                    }
                })
                .build();
    }

    private static final class CountedRequestBody extends HttpEntityWrapper {
        private final Counter counter;

        CountedRequestBody(HttpEntity entity, Counter counter) {
            super(entity);
            this.counter = counter;
        }

        @Override
        public void writeTo(OutputStream out) throws IOException {
            super.writeTo(new FilterOutputStream(out) {
                @Override
                public void write(int b) throws IOException {
                    out.write(b);
                    counter.requestBytes++;
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    out.write(b, off, len);
                    counter.requestBytes += len;
                }
            });
        }
    }

    /** Counts what the stub reads; on close reads (and counts) what the stub left unread. */
    private static final class CountedResponseBody extends HttpEntityWrapper {
        private final Counter counter;

        CountedResponseBody(HttpEntity entity, Counter counter) {
            super(entity);
            this.counter = counter;
        }

        @Override
        public InputStream getContent() throws IOException {
            return new FilterInputStream(super.getContent()) {
                @Override
                public int read() throws IOException {
                    int b = in.read();
                    if (b >= 0) {
                        counter.responseBytes++;
                    }
                    return b;
                }

                @Override
                public int read(byte[] b, int off, int len) throws IOException {
                    int n = in.read(b, off, len);
                    if (n > 0) {
                        counter.responseBytes += n;
                    }
                    return n;
                }

                @Override
                public void close() throws IOException {
                    byte[] rest = new byte[8192];
                    try {
                        while (read(rest, 0, rest.length) >= 0) {
                            // drain: the connection is reusable only once the body is consumed
                        }
                    } finally {
                        in.close();
                    }
                }
            };
        }
    }
}
