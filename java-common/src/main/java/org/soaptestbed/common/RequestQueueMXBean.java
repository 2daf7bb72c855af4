package org.soaptestbed.common;

/**
 * Tomcat's request executor as Prometheus sees it (tomcat_executor_* in jmx-exporter.yaml).
 * Tomcat's own ThreadPool MBean has the busy threads but not the requests that wait for one:
 * they sit in the executor's queue once every worker (TOMCAT_MAX_THREADS) is busy.
 */
public interface RequestQueueMXBean {

    /** Requests accepted and parsed far enough to be queued, waiting for a worker thread. */
    int getQueuedRequests();

    /** Worker threads running a request now. */
    int getBusyThreads();

    /** TOMCAT_MAX_THREADS. */
    int getMaxThreads();
}
