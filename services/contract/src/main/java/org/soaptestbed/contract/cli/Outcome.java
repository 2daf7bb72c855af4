package org.soaptestbed.contract.cli;

/**
 * What one call returned, checked against the request: for send* the service's count and
 * checksum beside the locally computed checksum, for echoInts whether the echo equals the
 * request, for work who served it. Fields that do not apply to the operation are null.
 */
record Outcome(boolean checked, Long count, Long checksum, Long expectedChecksum,
               Boolean echoEqual, Served work) {

    /** work's answer. */
    record Served(String implementation, String host, int pid) {
    }

    static Outcome plain() {
        return new Outcome(true, null, null, null, null, null);
    }

    static Outcome digest(int count, long checksum, int expectedCount, long expectedChecksum) {
        return new Outcome(count == expectedCount && checksum == expectedChecksum,
                (long) count, checksum, expectedChecksum, null, null);
    }

    /** echoInts: count is how many items came back. */
    static Outcome echo(int echoedCount, boolean equal) {
        return new Outcome(equal, (long) echoedCount, null, null, equal, null);
    }

    static Outcome served(String implementation, String host, int pid) {
        return new Outcome(implementation != null && host != null, null, null, null, null,
                new Served(implementation, host, pid));
    }
}
