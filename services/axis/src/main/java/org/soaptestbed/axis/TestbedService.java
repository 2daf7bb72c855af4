package org.soaptestbed.axis;

import java.io.IOException;
import java.io.UncheckedIOException;
import jakarta.activation.DataHandler;
import org.apache.axis2.databinding.types.UnsignedByte;
import org.apache.axis2.databinding.types.UnsignedInt;
import org.soaptestbed.common.Demand;
import org.soaptestbed.contract.Checksum;
import org.soaptestbed.contract.Contract;
import org.soaptestbed.contract.v1.Digest;
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
 * The contract's operations (services/contract/README.md), one short method each. Every
 * operation first takes the SERVICE demand; send* answer the item count and the FNV-1a
 * checksum of the items' canonical bytes. One instance serves all requests (stateless).
 */
public final class TestbedService implements TestbedServiceSkeletonInterface {

    static final String IMPLEMENTATION = "axis";

    private final Demand demand;
    private final String host;
    private final int pid;

    TestbedService(Demand demand, String host, int pid) {
        this.demand = demand;
        this.host = host;
        this.pid = pid;
    }

    @Override
    public PingResponse ping(Ping request) {
        demand.apply();
        return new PingResponse();
    }

    @Override
    public SendBytesResponse sendBytes(SendBytes request) {
        demand.apply();
        UnsignedByte[] items = request.getItems();
        int[] values = new int[items == null ? 0 : items.length];
        for (int i = 0; i < values.length; i++) {
            values[i] = items[i].intValue();   // ADB rejected anything outside 0..255
        }
        SendBytesResponse response = new SendBytesResponse();
        response.setSendBytesResponse(digest(values.length, Checksum.ofUnsignedBytes(values)));
        return response;
    }

    @Override
    public SendIntsResponse sendInts(SendInts request) {
        demand.apply();
        int[] items = orEmpty(request.getItems());
        SendIntsResponse response = new SendIntsResponse();
        response.setSendIntsResponse(digest(items.length, Checksum.ofInts(items)));
        return response;
    }

    @Override
    public SendFloatsResponse sendFloats(SendFloats request) {
        demand.apply();
        float[] items = request.getItems() == null ? new float[0] : request.getItems();
        SendFloatsResponse response = new SendFloatsResponse();
        response.setSendFloatsResponse(digest(items.length, Checksum.ofFloats(items)));
        return response;
    }

    @Override
    public SendDoublesResponse sendDoubles(SendDoubles request) {
        demand.apply();
        double[] items = request.getItems() == null ? new double[0] : request.getItems();
        SendDoublesResponse response = new SendDoublesResponse();
        response.setSendDoublesResponse(digest(items.length, Checksum.ofDoubles(items)));
        return response;
    }

    @Override
    public SendIntBufferResponse sendIntBuffer(SendIntBuffer request) {
        demand.apply();
        byte[] data = bytes(request.getData());
        if (data.length % 4 != 0) {
            throw new ClientFault("sendIntBuffer: data is " + data.length
                    + " bytes, not a whole number of int32s (a multiple of 4)");
        }
        SendIntBufferResponse response = new SendIntBufferResponse();
        response.setSendIntBufferResponse(digest(data.length / 4, Checksum.ofBytes(data)));
        return response;
    }

    @Override
    public EchoIntsResponse echoInts(EchoInts request) {
        demand.apply();
        EchoIntsResponse response = new EchoIntsResponse();
        response.setItems(request.getItems());
        return response;
    }

    @Override
    public WorkResponse work(Work request) {
        demand.apply();
        long cpu = checkMicros("cpuMicros", request.getCpuMicros());
        long wait = checkMicros("waitMicros", request.getWaitMicros());
        Demand.burn(cpu);
        Demand.sleepMicros(wait);
        WorkResponse response = new WorkResponse();
        response.setImplementation(IMPLEMENTATION);
        response.setHost(host);
        response.setPid(pid);
        return response;
    }

    private static long checkMicros(String name, long micros) {
        if (micros < 0 || micros > Contract.MAX_WORK_MICROS) {
            throw new ClientFault("work: " + name + " = " + micros + " is outside 0.."
                    + Contract.MAX_WORK_MICROS + " (60 s)");
        }
        return micros;
    }

    private static Digest digest(int count, long checksum) {
        Digest d = new Digest();
        d.setCount(count);
        d.setChecksum(new UnsignedInt(checksum));
        return d;
    }

    private static int[] orEmpty(int[] items) {
        return items == null ? new int[0] : items;
    }

    private static byte[] bytes(DataHandler data) {
        if (data == null) {
            throw new ClientFault("sendIntBuffer: the data element is missing");
        }
        try {
            return data.getInputStream().readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
