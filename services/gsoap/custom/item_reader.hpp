// The tuned serializers' reader of array items (items.cpp): scans plain items
//     <P:items>VALUE</P:items>      (white space between items allowed)
// straight from gSOAP's receive buffer, soap->buf[bufidx, buflen), as many as the buffer
// holds, and leaves everything else -- an item cut by the end of the buffer, attributes,
// comments, entities, CDATA, other white space, a value item_text.hpp does not read --
// unread for gSOAP's own reader, which the caller calls for one item and then scans on.
//
// What gSOAP's reader does per item that this one keeps:
//  - the element name: P:items is matched against "tb:items" by gSOAP (soap_match_tag, the
//    namespace bindings in scope) the first time it is seen; later items must be the same
//    bytes. An item's own xmlns declarations make it not plain, so the bindings checked are
//    the ones the items share (stale ones of an item read by gSOAP are popped first, as
//    soap_peek_element does);
//  - the depth limit (soap->maxlevel) and the item limit (soap->maxoccurs, SOAP_OCCURS);
//  - every check of the bytes themselves (size, DTDs, depth, attribute names, UTF-8) runs
//    where the bytes arrive, in the receive hooks, before any reader sees them; this one
//    reads no further than gSOAP's buffer, and gSOAP refills it.
// What it skips: soap_peek_element's per-character soap_get, the attribute list walk, the
// id/href tables, soap_value's copy and strtol/strtod (item_text.hpp instead).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "item_text.hpp"
#include "stdsoap2.h"

namespace tb {

template <typename T>
class ItemScanner {
 public:
  // tag: the items' element name as the generated code names it ("tb:items")
  ItemScanner(struct soap *soap, const char *tag) : soap_(soap), tag_(tag) {}

  // Appends the plain items at the read position; false (soap->error set) on SOAP_OCCURS.
  bool scan(std::vector<T> &items) {
    if (!usable()) return true;
    const char *const buf = soap_->buf;
    const char *p = buf + soap_->bufidx;
    const char *const end = buf + soap_->buflen;
    bool ok = true;
    for (;;) {
      const char *q = p;
      while (q < end && (*q == ' ' || *q == '\n' || *q == '\r' || *q == '\t')) ++q;
      if (end - q < 2 || *q != '<') break;
      const char *value = start_tag_end(q + 1, end);
      if (!value) break;
      T v;
      const char *lt = item_text::read_to_tag(value, end, v);
      if (!lt || static_cast<size_t>(end - lt) < len_ + 3 || lt[1] != '/' ||
          !same(lt + 2, name_, len_) || lt[2 + len_] != '>')
        break;
      if (items.size() > soap_->maxoccurs) {  // as the generated reader: before the insert
        soap_->error = SOAP_OCCURS;
        ok = false;
        break;
      }
      items.push_back(v);
      p = lt + len_ + 3;
    }
    soap_->bufidx = static_cast<size_t>(p - buf);
    return ok;
  }

 private:
  // a == b for n bytes, 8 at a time (n is a tag name: short; memcmp's call costs more)
  static bool same(const char *a, const char *b, size_t n) {
    for (; n >= 8; a += 8, b += 8, n -= 8) {
      uint64_t x, y;
      std::memcpy(&x, a, 8);
      std::memcpy(&y, b, 8);
      if (x != y) return false;
    }
    for (; n > 0; --n)
      if (*a++ != *b++) return false;
    return true;
  }

  // The state in which the next bytes of the buffer are the next bytes of the message.
  bool usable() const {
    return soap_->ahead == 0 && !soap_->peeked && !soap_->cdata &&
           !(soap_->mode & SOAP_XML_DOM) && soap_->level < soap_->maxlevel &&
           soap_->bufidx <= soap_->buflen;
  }

  // p: after '<'. The byte after the start tag's '>' when the tag is a plain item start
  // tag (the known name, or a new name gSOAP matches with tag_); else nullptr.
  const char *start_tag_end(const char *p, const char *end) {
    if (len_ && static_cast<size_t>(end - p) > len_ && p[len_] == '>' && same(p, name_, len_))
      return p + len_ + 1;
    if (*p == '/' || *p == '!' || *p == '?') return nullptr;  // an end tag, comment, PI
    const char *gt = p;
    while (gt < end && *gt != '>') {
      const unsigned char c = static_cast<unsigned char>(*gt);
      if (c <= 32 || c == '/' || gt - p >= static_cast<long>(kMaxName)) return nullptr;
      ++gt;
    }
    if (gt == end || gt == p) return nullptr;
    const size_t len = static_cast<size_t>(gt - p);
    std::memcpy(name_, p, len);
    name_[len] = '\0';
    len_ = 0;
    soap_pop_namespace(soap_);  // bindings of an item gSOAP read are out of scope here
    if (soap_match_tag(soap_, name_, tag_) != SOAP_OK) {
      soap_->error = SOAP_OK;  // not an item (an unbound prefix sets it): gSOAP decides
      return nullptr;
    }
    len_ = len;
    return gt + 1;
  }

  // names longer than this (and than gSOAP's own soap->tag) are left to gSOAP
  static constexpr size_t kMaxName = std::min<size_t>(63, sizeof(((struct soap *)nullptr)->tag) - 1);

  struct soap *soap_;
  const char *tag_;
  char name_[64] = {0};  // the items' start tag name as the sender writes it, matched once
  size_t len_ = 0;
};

}  // namespace tb
