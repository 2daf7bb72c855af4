package org.soaptestbed.clones;

/**
 * The wait in front of a backend's clients, as JMX shows it (clone_client_lock_* in
 * java-common/agents/jmx-exporter.yaml; "lock" of /status): singleton mode waits for the
 * {@code synchronized} {@link SingletonSoapClient#invoke}, pool mode for a free pooled client.
 * Request mode has no such wait and no bean.
 */
public interface ClientLockMXBean {

    /** Calls waiting now (singleton: request threads BLOCKED on the client's monitor). */
    int getWaitingThreads();

    /** Calls that got the lock (or a pooled client) so far. */
    long getAcquisitions();

    /** Calls that gave up waiting (pool: no client free within SOAP_TIMEOUT_MS). */
    long getTimeouts();

    /** Seconds the calls that got the client spent waiting for it, summed. */
    double getWaitSeconds();

    /** Seconds the lock (or pooled clients) were held, summed: busy time of the lock. */
    double getHeldSeconds();
}
