package org.soaptestbed.cxfshop;

import jakarta.jws.WebMethod;
import jakarta.jws.WebParam;
import jakarta.jws.WebResult;
import jakarta.jws.WebService;
import java.util.List;

/** The service: document/literal wrapped, one WSDL document (the types inline). */
@WebService(name = "Shop", serviceName = "ShopService", portName = "ShopPort", targetNamespace = "urn:cxf-shop")
public class Shop {

    /** The basket's total: the sum of its items' prices (an array operation). */
    @WebMethod
    @WebResult(name = "total")
    public double total(@WebParam(name = "item") List<Item> items) {
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
