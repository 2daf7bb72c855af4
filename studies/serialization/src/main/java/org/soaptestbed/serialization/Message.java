package org.soaptestbed.serialization;

import java.rmi.RemoteException;
import javax.xml.namespace.QName;
import javax.xml.stream.XMLStreamReader;
import org.apache.axiom.blob.Blobs;
import org.apache.axiom.util.activation.DataHandlerUtils;
import org.apache.axis2.databinding.ADBBean;
import org.apache.axis2.databinding.types.UnsignedByte;
import org.soaptestbed.contract.Checksum;
import org.soaptestbed.contract.Payload;
import org.soaptestbed.contract.v1.Digest;
import org.soaptestbed.contract.v1.SendBytes;
import org.soaptestbed.contract.v1.SendDoubles;
import org.soaptestbed.contract.v1.SendFloats;
import org.soaptestbed.contract.v1.SendIntBuffer;
import org.soaptestbed.contract.v1.SendInts;
import org.soaptestbed.contract.v1.TestbedServiceStub;

/**
 * One request of the contract -- sendBytes, sendInts, sendFloats, sendDoubles or
 * sendIntBuffer with the seeded payload (services/contract/README.md) -- as the ADB bean
 * the generated stub sends, with what the generated code does with it: the bean's
 * request element (serialized by Axis2 into an envelope, {@link Envelopes}), its parse
 * back with the generated {@code Factory.parse} (count and checksum of what came back),
 * and the stub's call.
 */
abstract class Message {

    static final String OPERATIONS = "sendBytes, sendInts, sendFloats, sendDoubles, sendIntBuffer";

    final String op;
    final int n;
    final long rawBytes;
    final long expectedCount;
    final long expectedChecksum;

    Message(String op, int n, long rawBytes, long expectedChecksum) {
        this.op = op;
        this.n = n;
        this.rawBytes = rawBytes;
        this.expectedCount = n;
        this.expectedChecksum = expectedChecksum;
    }

    /** The request bean and its element name. */
    abstract ADBBean bean();

    abstract QName qname();

    /** Parses the request element with the generated parser: {count, checksum}. */
    abstract long[] parse(XMLStreamReader reader) throws Exception;

    /** The generated stub's call: the service's {count, checksum}. */
    abstract long[] call(TestbedServiceStub stub) throws RemoteException;

    boolean expected(long[] digest) {
        return digest != null && digest[0] == expectedCount && digest[1] == expectedChecksum;
    }

    static long[] digest(Digest d) {
        return new long[] {d.getCount(), d.getChecksum().longValue()};
    }

    /** The message of (op, n, seed); null for another operation. sendIntBuffer's data
     *  travels as an MTOM attachment when the stub's client enables MTOM. */
    static Message of(String op, int n, long seed) {
        switch (op) {
            case "sendBytes":
                return bytes(n, seed);
            case "sendInts":
                return ints(n, seed);
            case "sendFloats":
                return floats(n, seed);
            case "sendDoubles":
                return doubles(n, seed);
            case "sendIntBuffer":
                return intBuffer(n, seed);
            default:
                return null;
        }
    }

    private static Message bytes(int n, long seed) {
        int[] items = Payload.bytes(n, seed);
        UnsignedByte[] values = new UnsignedByte[n];
        for (int i = 0; i < n; i++) {
            values[i] = new UnsignedByte(items[i]);
        }
        SendBytes bean = new SendBytes();
        bean.setItems(values);
        return new Message("sendBytes", n, n, Checksum.ofUnsignedBytes(items)) {
            ADBBean bean() { return bean; }
            QName qname() { return SendBytes.MY_QNAME; }
            long[] parse(XMLStreamReader r) throws Exception {
                UnsignedByte[] got = SendBytes.Factory.parse(r).getItems();
                int[] v = new int[got == null ? 0 : got.length];
                for (int i = 0; i < v.length; i++) {
                    v[i] = got[i].intValue();
                }
                return new long[] {v.length, Checksum.ofUnsignedBytes(v)};
            }
            long[] call(TestbedServiceStub s) throws RemoteException {
                return digest(s.sendBytes(bean).getSendBytesResponse());
            }
        };
    }

    private static Message ints(int n, long seed) {
        int[] items = Payload.ints(n, seed);
        SendInts bean = new SendInts();
        bean.setItems(items);
        return new Message("sendInts", n, 4L * n, Checksum.ofInts(items)) {
            ADBBean bean() { return bean; }
            QName qname() { return SendInts.MY_QNAME; }
            long[] parse(XMLStreamReader r) throws Exception {
                int[] got = SendInts.Factory.parse(r).getItems();
                int[] v = got == null ? new int[0] : got;
                return new long[] {v.length, Checksum.ofInts(v)};
            }
            long[] call(TestbedServiceStub s) throws RemoteException {
                return digest(s.sendInts(bean).getSendIntsResponse());
            }
        };
    }

    private static Message floats(int n, long seed) {
        float[] items = Payload.floats(n, seed);
        SendFloats bean = new SendFloats();
        bean.setItems(items);
        return new Message("sendFloats", n, 4L * n, Checksum.ofFloats(items)) {
            ADBBean bean() { return bean; }
            QName qname() { return SendFloats.MY_QNAME; }
            long[] parse(XMLStreamReader r) throws Exception {
                float[] got = SendFloats.Factory.parse(r).getItems();
                float[] v = got == null ? new float[0] : got;
                return new long[] {v.length, Checksum.ofFloats(v)};
            }
            long[] call(TestbedServiceStub s) throws RemoteException {
                return digest(s.sendFloats(bean).getSendFloatsResponse());
            }
        };
    }

    private static Message doubles(int n, long seed) {
        double[] items = Payload.doubles(n, seed);
        SendDoubles bean = new SendDoubles();
        bean.setItems(items);
        return new Message("sendDoubles", n, 8L * n, Checksum.ofDoubles(items)) {
            ADBBean bean() { return bean; }
            QName qname() { return SendDoubles.MY_QNAME; }
            long[] parse(XMLStreamReader r) throws Exception {
                double[] got = SendDoubles.Factory.parse(r).getItems();
                double[] v = got == null ? new double[0] : got;
                return new long[] {v.length, Checksum.ofDoubles(v)};
            }
            long[] call(TestbedServiceStub s) throws RemoteException {
                return digest(s.sendDoubles(bean).getSendDoublesResponse());
            }
        };
    }

    private static Message intBuffer(int n, long seed) {
        byte[] data = Payload.intBuffer(Payload.ints(n, seed));
        SendIntBuffer bean = new SendIntBuffer();
        bean.setData(DataHandlerUtils.toDataHandler(Blobs.createBlob(data)));
        return new Message("sendIntBuffer", n, data.length, Checksum.ofBytes(data)) {
            ADBBean bean() { return bean; }
            QName qname() { return SendIntBuffer.MY_QNAME; }
            long[] parse(XMLStreamReader r) throws Exception {
                byte[] got = Bytes.of(SendIntBuffer.Factory.parse(r).getData());
                return new long[] {got.length / 4, Checksum.ofBytes(got)};
            }
            long[] call(TestbedServiceStub s) throws RemoteException {
                return digest(s.sendIntBuffer(bean).getSendIntBufferResponse());
            }
        };
    }
}
