package org.soaptestbed.contract.cli;

import java.rmi.RemoteException;
import java.util.Arrays;
import org.apache.axiom.blob.Blobs;
import org.apache.axiom.util.activation.DataHandlerUtils;
import org.apache.axis2.databinding.types.UnsignedByte;
import org.soaptestbed.contract.Checksum;
import org.soaptestbed.contract.Payload;
import org.soaptestbed.contract.v1.Digest;
import org.soaptestbed.contract.v1.EchoInts;
import org.soaptestbed.contract.v1.Ping;
import org.soaptestbed.contract.v1.SendBytes;
import org.soaptestbed.contract.v1.SendDoubles;
import org.soaptestbed.contract.v1.SendFloats;
import org.soaptestbed.contract.v1.SendIntBuffer;
import org.soaptestbed.contract.v1.SendInts;
import org.soaptestbed.contract.v1.TestbedServiceStub;
import org.soaptestbed.contract.v1.Work;
import org.soaptestbed.contract.v1.WorkResponse;

/**
 * One operation's call: the request is built once from the contract's seeded generator,
 * then every {@link #call} sends it through the generated stub and checks the answer.
 */
@FunctionalInterface
interface Exchange {

    Outcome call(TestbedServiceStub stub) throws RemoteException;

    /** The exchange for {@code op} with {@code n} items from {@code seed}. */
    static Exchange of(String op, int n, long seed, long cpuMicros, long waitMicros) {
        switch (op) {
            case "ping": {
                Ping request = new Ping();
                return stub -> {
                    stub.ping(request);
                    return Outcome.plain();
                };
            }
            case "sendBytes": {
                int[] items = Payload.bytes(n, seed);
                UnsignedByte[] values = new UnsignedByte[n];
                for (int i = 0; i < n; i++) {
                    values[i] = new UnsignedByte(items[i]);
                }
                SendBytes request = new SendBytes();
                request.setItems(values);
                long expected = Checksum.ofUnsignedBytes(items);
                return stub -> digest(stub.sendBytes(request).getSendBytesResponse(), n, expected);
            }
            case "sendInts": {
                int[] items = Payload.ints(n, seed);
                SendInts request = new SendInts();
                request.setItems(items);
                long expected = Checksum.ofInts(items);
                return stub -> digest(stub.sendInts(request).getSendIntsResponse(), n, expected);
            }
            case "sendFloats": {
                float[] items = Payload.floats(n, seed);
                SendFloats request = new SendFloats();
                request.setItems(items);
                long expected = Checksum.ofFloats(items);
                return stub -> digest(stub.sendFloats(request).getSendFloatsResponse(), n, expected);
            }
            case "sendDoubles": {
                double[] items = Payload.doubles(n, seed);
                SendDoubles request = new SendDoubles();
                request.setItems(items);
                long expected = Checksum.ofDoubles(items);
                return stub -> digest(stub.sendDoubles(request).getSendDoublesResponse(), n, expected);
            }
            case "sendIntBuffer": {
                byte[] data = Payload.intBuffer(Payload.ints(n, seed));
                SendIntBuffer request = new SendIntBuffer();
                request.setData(DataHandlerUtils.toDataHandler(Blobs.createBlob(data)));
                long expected = Checksum.ofBytes(data);
                return stub -> digest(stub.sendIntBuffer(request).getSendIntBufferResponse(), n, expected);
            }
            case "echoInts": {
                int[] items = Payload.ints(n, seed);
                EchoInts request = new EchoInts();
                request.setItems(items);
                return stub -> {
                    int[] echoed = stub.echoInts(request).getItems();
                    int[] got = echoed == null ? new int[0] : echoed;
                    return Outcome.echo(got.length, Arrays.equals(items, got));
                };
            }
            case "work": {
                Work request = new Work();
                request.setCpuMicros(cpuMicros);
                request.setWaitMicros(waitMicros);
                return stub -> {
                    WorkResponse r = stub.work(request);
                    return Outcome.served(r.getImplementation(), r.getHost(), r.getPid());
                };
            }
            default:
                throw new IllegalArgumentException("not a contract operation: " + op);
        }
    }

    private static Outcome digest(Digest d, int expectedCount, long expectedChecksum) {
        return Outcome.digest(d.getCount(), d.getChecksum().longValue(), expectedCount, expectedChecksum);
    }
}
