package org.soaptestbed.cxfshop;

import jakarta.jws.WebMethod;
import jakarta.jws.WebParam;
import jakarta.jws.WebResult;
import jakarta.jws.WebService;
import java.util.List;

/** The service: document/literal wrapped, one WSDL document (the types inline). */
@WebService(name = "Shop", serviceName = "ShopService", portName = "ShopPort", targetNamespace = "urn:cxf-shop")
public class Shop {

    /** The longest wait a request may ask for. */
    static final int MAX_WAIT_MS = 10_000;

    /**
     * The basket's total: the sum of its items' prices (an array operation), answered after
     * waitMs milliseconds (0 .. 10,000: a service that waits on something of its own, a database,
     * another service, as a remote one does).
     */
    @WebMethod
    @WebResult(name = "total")
    public double total(@WebParam(name = "item") List<Item> items, @WebParam(name = "waitMs") int waitMs) {
        if (waitMs > 0) {
            try {
                Thread.sleep(Math.min(waitMs, MAX_WAIT_MS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        double sum = 0;
        if (items != null) {
            for (Item i : items) {
                sum += i.getPrice();
            }
        }
        return sum;
    }

    /** Always answers with a Fault naming why. */
    @WebMethod
    @WebResult(name = "never")
    public String fail(@WebParam(name = "why") String why) throws ShopFault {
        throw new ShopFault(why == null || why.isEmpty() ? "asked to fail" : why);
    }
}
