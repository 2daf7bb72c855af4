package org.soaptestbed.axis;

import org.apache.axis2.context.MessageContext;
import org.soaptestbed.contract.v1.EchoInts;
import org.soaptestbed.contract.v1.EchoIntsResponse;
import org.soaptestbed.contract.v1.Ping;
import org.soaptestbed.contract.v1.PingResponse;
import org.soaptestbed.contract.v1.SendBytes;
import org.soaptestbed.contract.v1.SendBytesResponse;
import org.soaptestbed.contract.v1.SendDoubles;
import org.soaptestbed.contract.v1.SendDoublesResponse;
import org.soaptestbed.contract.v1.SendFloats;
import org.soaptestbed.contract.v1.SendFloatsResponse;
import org.soaptestbed.contract.v1.SendIntBuffer;
import org.soaptestbed.contract.v1.SendIntBufferResponse;
import org.soaptestbed.contract.v1.SendInts;
import org.soaptestbed.contract.v1.SendIntsResponse;
import org.soaptestbed.contract.v1.TestbedServiceSkeletonInterface;
import org.soaptestbed.contract.v1.Work;
import org.soaptestbed.contract.v1.WorkResponse;

/**
 * The service as seen by one request: notes on the message context that the request was
 * parsed and handed to the service, so that {@link TestbedMessageReceiver} can tell a bad
 * request (failed before) from a failing service (failed after).
 */
final class ReachedService implements TestbedServiceSkeletonInterface {

    private static final String PROPERTY = "testbed.reachedService";

    private final TestbedServiceSkeletonInterface service;
    private final MessageContext request;

    ReachedService(TestbedServiceSkeletonInterface service, MessageContext request) {
        this.service = service;
        this.request = request;
    }

    static boolean reached(MessageContext request) {
        return request.getProperty(PROPERTY) != null;
    }

    private void reached() {
        request.setProperty(PROPERTY, Boolean.TRUE);
    }

    @Override
    public PingResponse ping(Ping r) {
        reached();
        return service.ping(r);
    }

    @Override
    public SendBytesResponse sendBytes(SendBytes r) {
        reached();
        return service.sendBytes(r);
    }

    @Override
    public SendIntsResponse sendInts(SendInts r) {
        reached();
        return service.sendInts(r);
    }

    @Override
    public SendFloatsResponse sendFloats(SendFloats r) {
        reached();
        return service.sendFloats(r);
    }

    @Override
    public SendDoublesResponse sendDoubles(SendDoubles r) {
        reached();
        return service.sendDoubles(r);
    }

    @Override
    public SendIntBufferResponse sendIntBuffer(SendIntBuffer r) {
        reached();
        return service.sendIntBuffer(r);
    }

    @Override
    public EchoIntsResponse echoInts(EchoInts r) {
        reached();
        return service.echoInts(r);
    }

    @Override
    public WorkResponse work(Work r) {
        reached();
        return service.work(r);
    }
}
