// Which serializers a soap context uses for the contract's arrays (GSOAP_SERIALIZERS):
//   generated  the code soapcpp2 generates from the contract, as it is: per item
//              soap_element_begin_in/peek/revert and soap_in_int ... (one call per
//              character), printf-style formatting (%.9G, %.17lG) per item on output;
//   tuned      the custom serializers of items.cpp: items written straight into gSOAP's
//              send buffer (std::to_chars, shortest round trip for floats and doubles),
//              plain items scanned from gSOAP's receive buffer (std::from_chars), anything
//              unusual handed to the generated code item by item.
// Both read and write the same WSDL and wire format; one program can use either on each of
// its contexts, so a study or a test compares them in one process. The choice lives in a
// gSOAP plug-in on the context (copied with it by soap_copy); without one, a context uses
// the generated serializers.
#pragma once

#include <string>

struct soap;

namespace tb {

enum class Serializers { generated, tuned };

// The default of every program of the testbed: docs/serialization.md has the measurements.
constexpr Serializers kDefaultSerializers = Serializers::tuned;

const char *serializers_name(Serializers s);
// "generated" or "tuned"; false for anything else.
bool parse_serializers(const std::string &text, Serializers *out);

// Sets the serializers of this context's arrays; SOAP_OK or SOAP_EOM.
int use_serializers(struct soap *soap, Serializers s);
Serializers serializers_of(struct soap *soap);

}  // namespace tb
