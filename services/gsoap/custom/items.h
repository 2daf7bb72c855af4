// soapcpp2 interface file: the contract's array elements with custom serializers, gSOAP's
// own mechanism for them (as gSOAP's custom/*.h; typemap.dat maps each element here).
//
// Each class below is the type wsdl2h declares for the element (an `items` sequence,
// elementFormDefault qualified); soapcpp2 still generates its serializers
// (soap_in_tb__IntItems, ... : the `generated` variant, unchanged). Each element is an
// `extern typedef` of one of them: its serializers (soap_in__tb__sendInts, ...) are
// items.cpp's, which call the generated ones or the tuned ones as the context says
// (serializers.hpp). The element names, namespace and XML stay the contract's.

#include "items_fwd.hpp"  // soapStub.h names the typedefs below before it declares the classes

class tb__ByteItems {
 public:
  std::vector<unsigned char> items 0;  // xsd:unsignedByte
};
class tb__IntItems {
 public:
  std::vector<int> items 0;
};
class tb__FloatItems {
 public:
  std::vector<float> items 0;
};
class tb__DoubleItems {
 public:
  std::vector<double> items 0;
};

extern typedef tb__ByteItems _tb__sendBytes;
extern typedef tb__IntItems _tb__sendInts;
extern typedef tb__FloatItems _tb__sendFloats;
extern typedef tb__DoubleItems _tb__sendDoubles;
extern typedef tb__IntItems _tb__echoInts;
extern typedef tb__IntItems _tb__echoIntsResponse;
