// SOAPAction against the body (Service::dispatch): a request whose SOAPAction header names
// one of the contract's operations while its body holds another operation is a Client
// fault -- the sender meant one call and sent another. An empty or absent SOAPAction, or
// one the contract does not define, leaves the choice to the body element, as Axis2 does.
// The actions are read from the embedded WSDL's binding, so the contract stays the one
// source of truth.
#include <map>
#include <string>

#include "service.hpp"
#include "wsdl_embed.hpp"

namespace tb {
namespace {

// soapAction -> operation name, from each <soap:operation soapAction="..."> of the binding
// and the <wsdl:operation name="..."> around it.
const std::map<std::string, std::string> &contract_actions() {
  static const std::map<std::string, std::string> actions = [] {
    std::map<std::string, std::string> out;
    const std::string wsdl(kContractWsdl, kContractWsdlSize);
    const std::string op_marker = "operation name=\"", action_marker = "soapAction=\"";
    for (size_t at = wsdl.find(action_marker); at != std::string::npos;
         at = wsdl.find(action_marker, at + 1)) {
      size_t op = wsdl.rfind(op_marker, at);
      if (op == std::string::npos) continue;
      op += op_marker.size();
      const size_t action = at + action_marker.size();
      out[wsdl.substr(action, wsdl.find('"', action) - action)] =
          wsdl.substr(op, wsdl.find('"', op) - op);
    }
    return out;
  }();
  return actions;
}

}  // namespace

int Service::dispatch() {
  const char *action = soap->action;
  if (action && *action) {
    const auto found = contract_actions().find(action);
    if (found != contract_actions().end() && soap_peek_element(soap) == SOAP_OK) {
      const std::string expected = "tb:" + found->second;
      if (soap_match_tag(soap, soap->tag, expected.c_str()) != SOAP_OK) {
        const std::string text = "SOAPAction '" + std::string(action) + "' names operation " +
                                 found->second + ", but the body holds <" + soap->tag + ">";
        return soap_sender_fault(soap, soap_strdup(soap, text.c_str()), nullptr);
      }
    }
  }
  return TestbedSoapBindingService::dispatch();
}

}  // namespace tb
