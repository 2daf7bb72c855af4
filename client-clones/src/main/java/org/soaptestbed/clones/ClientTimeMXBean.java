package org.soaptestbed.clones;

/**
 * The client tier's wait for its SOAP clients, as JMX shows it (clone_client_* in
 * java-common/agents/jmx-exporter.yaml): the {@link ClientTime} counters of one backend, the
 * ones {@code GET /status} shows as {@code client_time}. Singleton mode waits for the
 * {@code synchronized} {@link SingletonSoapClient#invoke}, pool mode for a free pooled client;
 * request mode builds its own (no wait, the hold is the build and the call).
 */
public interface ClientTimeMXBean {

    /** Calls waiting for a client now (singleton: threads BLOCKED on its monitor). */
    int getWaitingThreads();

    /** Calls that got a client. */
    long getObtained();

    /** Calls that never got one (waited past SOAP_TIMEOUT_MS, or none could be built). */
    long getNotObtained();

    /** Seconds the calls that got a client waited for it, summed. */
    double getWaitSeconds();

    /** Seconds clients were held, summed: the singleton lock's busy time. */
    double getHoldSeconds();

    /** CPU seconds of the holding threads while they held their client, summed. */
    double getHoldCpuSeconds();
}
