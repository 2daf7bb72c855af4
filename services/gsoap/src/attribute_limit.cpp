// attribute_names_over (attribute_limit.hpp): counts gSOAP's attribute list, never further
// than one past the limit.
#include "attribute_limit.hpp"

#include "stdsoap2.h"

namespace tb {

bool attribute_names_over(const struct soap *soap, int max_names) {
  int n = 0;
  for (const struct soap_attribute *a = soap->attributes; a; a = a->next)
    if (++n > max_names) return true;
  return false;
}

}  // namespace tb
