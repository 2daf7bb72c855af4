package org.soaptestbed.cxfshop;

import jakarta.xml.ws.WebFault;

/** What fail() throws: a SOAP Fault with a detail. */
@WebFault(name = "ShopFault", targetNamespace = "urn:cxf-shop")
public class ShopFault extends Exception {
    private static final long serialVersionUID = 1L;

    public ShopFault(String message) {
        super(message);
    }
}
