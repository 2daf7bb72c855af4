package org.soaptestbed.cxfshop;

import jakarta.xml.ws.Endpoint;

/** Publishes {@link Shop} on 127.0.0.1:PORT/shop (loopback only) and prints its WSDL's URL. */
public final class ShopMain {
    private ShopMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 18701;
        String address = "http://127.0.0.1:" + port + "/shop";
        Endpoint endpoint = Endpoint.publish(address, new Shop());
        Runtime.getRuntime().addShutdownHook(new Thread(endpoint::stop));
        System.out.println(address + "?wsdl");
        System.out.flush();
        Thread.currentThread().join();
    }
}
