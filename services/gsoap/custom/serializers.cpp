// The serializers' choice per soap context, as a gSOAP plug-in (serializers.hpp).
#include "serializers.hpp"

#include <cstdlib>

#include "stdsoap2.h"

namespace tb {
namespace {

const char kPluginId[] = "tb-serializers";

struct Choice {
  Serializers which;
};

void delete_choice(struct soap *, struct soap_plugin *p) { std::free(p->data); }

int copy_choice(struct soap *, struct soap_plugin *dst, struct soap_plugin *src) {
  dst->data = std::malloc(sizeof(Choice));
  if (!dst->data) return SOAP_EOM;
  *static_cast<Choice *>(dst->data) = *static_cast<const Choice *>(src->data);
  return SOAP_OK;
}

int create_choice(struct soap *, struct soap_plugin *p, void *arg) {
  p->id = kPluginId;
  p->data = std::malloc(sizeof(Choice));
  if (!p->data) return SOAP_EOM;
  static_cast<Choice *>(p->data)->which = *static_cast<const Serializers *>(arg);
  p->fcopy = copy_choice;
  p->fdelete = delete_choice;
  return SOAP_OK;
}

}  // namespace

const char *serializers_name(Serializers s) {
  return s == Serializers::tuned ? "tuned" : "generated";
}

bool parse_serializers(const std::string &text, Serializers *out) {
  if (text == "generated") *out = Serializers::generated;
  else if (text == "tuned") *out = Serializers::tuned;
  else return false;
  return true;
}

int use_serializers(struct soap *soap, Serializers s) {
  if (auto *c = static_cast<Choice *>(soap_lookup_plugin(soap, kPluginId))) {
    c->which = s;
    return SOAP_OK;
  }
  return soap_register_plugin_arg(soap, create_choice, &s);
}

Serializers serializers_of(struct soap *soap) {
  const auto *c = static_cast<const Choice *>(soap_lookup_plugin(soap, kPluginId));
  return c ? c->which : Serializers::generated;
}

}  // namespace tb
