package org.soaptestbed.axis;

import org.apache.axiom.om.OMElement;
import org.apache.axis2.AxisFault;
import org.apache.axis2.context.MessageContext;
import org.soaptestbed.contract.Contract;
import org.soaptestbed.contract.v1.TestbedServiceMessageReceiverInOut;
import org.soaptestbed.contract.v1.TestbedServiceSkeletonInterface;

/**
 * The generated in-out receiver (ADB request parsing, skeleton call, response), plus:
 *
 * <ul>
 * <li>the body's wrapper element must be the dispatched operation's, in the contract
 *     namespace — ADB's parser never looks at the wrapper's own name, so
 *     {@code <other:sendInts/>} or a SOAPAction naming another operation would be served;
 * <li>a failure before the request reached the service — ADB could not turn the body into
 *     the operation's request (an unknown element, a value that does not parse, an int
 *     out of range) — is the client's, and becomes a Client fault.
 * </ul>
 */
public final class TestbedMessageReceiver extends TestbedServiceMessageReceiverInOut {

    @Override
    public void invokeBusinessLogic(MessageContext in, MessageContext out) throws AxisFault {
        String operation = in.getOperationContext().getAxisOperation().getName().getLocalPart();
        OMElement wrapper = in.getEnvelope().getBody().getFirstElement();
        if (wrapper == null) {
            throw Faults.client("the SOAP body is empty; operation " + operation + " expects {"
                    + Contract.NAMESPACE + "}" + operation);
        }
        if (!operation.equals(wrapper.getLocalName()) || !Contract.NAMESPACE.equals(wrapper.getNamespaceURI())) {
            throw Faults.client("operation " + operation + " expects the body element {"
                    + Contract.NAMESPACE + "}" + operation + ", got {"
                    + wrapper.getNamespaceURI() + "}" + wrapper.getLocalName());
        }
        super.getTheImplementationObject(in);   // a failure here is the service's, not the request's
        try {
            super.invokeBusinessLogic(in, out);
        } catch (AxisFault f) {
            if (Faults.isClient(f) || ReachedService.reached(in)) {
                throw f;
            }
            String xml = Faults.inputProblem(f);
            throw Faults.client(xml != null ? xml : "the body is not a valid " + operation
                    + " request: " + Faults.rootMessage(f));
        }
    }

    @Override
    protected Object getTheImplementationObject(MessageContext mc) throws AxisFault {
        return new ReachedService((TestbedServiceSkeletonInterface) super.getTheImplementationObject(mc), mc);
    }
}
