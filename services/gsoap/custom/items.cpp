// The custom serializers of the contract's array elements (items.h): for each element the
// four functions soapcpp2 expects of an `extern typedef` (default, serialize, out, in).
// On a context that uses the generated serializers (serializers.hpp) they call soapcpp2's
// own code for the element's class, so that variant is the generated code as it is. On a
// context that uses the tuned ones they read and write the element the same way, with the
// items done by item_reader.hpp and item_writer.hpp -- and gSOAP's own reader or writer for
// any item or element those leave alone (SOAP-encoding ids and types, unusual XML).
#include <vector>

#include "item_reader.hpp"
#include "item_writer.hpp"
#include "serializers.hpp"
#include "soapH.h"

namespace tb {
namespace {

const char kItemsTag[] = "tb:items";  // the items' element, as the generated code names it

// The generated code's functions for one item type (soapcpp2 names them after the C type),
// and its schema type
template <typename T> struct Generated;
#define TB_GENERATED(T, NAME, XSD)                                                            \
  template <> struct Generated<T> {                                                           \
    static constexpr const char *type = XSD;                                                  \
    static T *in(struct soap *s, const char *t, T *p, const char *ty) {                      \
      return soap_in_##NAME(s, t, p, ty);                                                     \
    }                                                                                         \
    static std::vector<T> *in_rest(struct soap *s, const char *t, std::vector<T> *a,          \
                                   const char *ty) {                                          \
      return soap_in_std__vectorTemplateOf##NAME(s, t, a, ty);                                \
    }                                                                                         \
    static int out(struct soap *s, const char *t, const std::vector<T> *a) {                  \
      return soap_out_std__vectorTemplateOf##NAME(s, t, -1, a, "");                           \
    }                                                                                         \
  };
TB_GENERATED(unsigned char, unsignedByte, "xsd:unsignedByte")
TB_GENERATED(int, int, "xsd:int")
TB_GENERATED(float, float, "xsd:float")
TB_GENERATED(double, double, "xsd:double")
#undef TB_GENERATED

// The items of one array, with the contract of the generated vector reader: at least one
// item read and the next element is not one (SOAP_TAG_MISMATCH/SOAP_NO_TAG) -> a; no item
// -> NULL with that error; any other error -> NULL. Plain items are scanned, the others
// read by gSOAP one at a time, exactly as the generated loop reads each.
template <typename T>
std::vector<T> *read_items(struct soap *soap, std::vector<T> *a) {
  using G = Generated<T>;
  ItemScanner<T> scanner(soap, kItemsTag);
  bool any = false;
  for (;;) {
    const size_t before = a->size();
    if (!scanner.scan(*a)) return nullptr;
    any = any || a->size() != before;
    if (soap_element_begin_in(soap, kItemsTag, 1, nullptr)) break;
    soap_revert(soap);
    if (*soap->id || *soap->href == '#')  // SOAP-encoding references: generated from here on
      return G::in_rest(soap, kItemsTag, a, G::type);
    if (a->size() > soap->maxoccurs) {
      soap->error = SOAP_OCCURS;
      return nullptr;
    }
    T v = T();
    if (!G::in(soap, kItemsTag, &v, G::type)) break;
    a->push_back(v);
    any = true;
  }
  if (any && (soap->error == SOAP_TAG_MISMATCH || soap->error == SOAP_NO_TAG)) {
    soap->error = SOAP_OK;
    return a;
  }
  return nullptr;
}

// One element, read as the generated reader of its class reads it (items.h), the items
// tuned. Elements with SOAP-encoding attributes (xsi:type, id, href) go to that reader.
template <typename Items>
Items *read_element(struct soap *soap, const char *tag, Items *a, const char *type, int type_id,
                    Items *(*generated)(struct soap *, const char *, Items *, const char *)) {
  if (soap_element_begin_in(soap, tag, 0, nullptr)) return nullptr;
  if (*soap->type || *soap->id || *soap->href) {
    soap_revert(soap);
    return generated(soap, tag, a, type);
  }
  a = static_cast<Items *>(soap_id_enter(soap, soap->id, a, type_id, sizeof(Items), soap->type,
                                         soap->arrayType, soap_instantiate, soap_fbase));
  if (!a) return nullptr;
  if (soap->alloced) a->soap_default(soap);
  if (!soap->body) return a;
  for (;;) {
    soap->error = SOAP_TAG_MISMATCH;
    if (read_items(soap, &a->items)) continue;
    if (soap->error == SOAP_TAG_MISMATCH) soap->error = soap_ignore_element(soap);
    if (soap->error == SOAP_NO_TAG) break;
    if (soap->error) return nullptr;
  }
  return soap_element_end_in(soap, tag) ? nullptr : a;
}

// One element, written as the generated writer of its class writes it, the items tuned.
template <typename Items>
int write_element(struct soap *soap, const char *tag, int id, const Items *a, const char *type,
                  int type_id) {
  if (soap_element_begin_out(soap, tag, soap_embedded_id(soap, id, a, type_id), type))
    return soap->error;
  using T = typename decltype(a->items)::value_type;
  const int err = can_write_items(soap) ? write_items(soap, kItemsTag, a->items)
                                                   : Generated<T>::out(soap, kItemsTag, &a->items);
  return err ? soap->error : soap_element_end_out(soap, tag);
}

bool tuned(struct soap *soap) { return serializers_of(soap) == Serializers::tuned; }

}  // namespace
}  // namespace tb

// The extern serializers soapcpp2 declares in soapH.h for each element of items.h.
#define TB_ITEMS_ELEMENT(ELEMENT, ITEMS)                                                       \
  void soap_default_##ELEMENT(struct soap *soap, ITEMS *a) { a->soap_default(soap); }         \
  void soap_serialize_##ELEMENT(struct soap *soap, const ITEMS *a) { a->soap_serialize(soap); } \
  int soap_out_##ELEMENT(struct soap *soap, const char *tag, int id, const ITEMS *a,          \
                         const char *type) {                                                  \
    return tb::tuned(soap) ? tb::write_element(soap, tag, id, a, type, SOAP_TYPE_##ITEMS)      \
                           : soap_out_##ITEMS(soap, tag, id, a, type);                        \
  }                                                                                           \
  ITEMS *soap_in_##ELEMENT(struct soap *soap, const char *tag, ITEMS *a, const char *type) {  \
    return tb::tuned(soap)                                                                    \
               ? tb::read_element(soap, tag, a, type, SOAP_TYPE_##ITEMS, soap_in_##ITEMS)     \
               : soap_in_##ITEMS(soap, tag, a, type);                                         \
  }

TB_ITEMS_ELEMENT(_tb__sendBytes, tb__ByteItems)
TB_ITEMS_ELEMENT(_tb__sendInts, tb__IntItems)
TB_ITEMS_ELEMENT(_tb__sendFloats, tb__FloatItems)
TB_ITEMS_ELEMENT(_tb__sendDoubles, tb__DoubleItems)
TB_ITEMS_ELEMENT(_tb__echoInts, tb__IntItems)
TB_ITEMS_ELEMENT(_tb__echoIntsResponse, tb__IntItems)
#undef TB_ITEMS_ELEMENT
