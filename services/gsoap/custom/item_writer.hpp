// The tuned serializers' writer of array items (items.cpp): <tag>VALUE</tag> per item, the
// tags copied and the value formatted (item_text.hpp) straight into gSOAP's send buffer,
// soap->buf, flushed through soap_flush when full -- the bytes gSOAP's generated writer
// produces for the same values in the same output mode, except the floating-point text
// (shortest round trip instead of %.9G / %.17lG). Flushes happen where the generated
// writer's happen (when the buffer is full), so even HTTP chunks are the same.
//
// It applies when an item is nothing but that: no indentation, default-namespace,
// canonical or DOM output, no element hooks, no pending attributes, no SOAP-encoding ids.
// Otherwise (can_write_items false) the caller uses the generated writer.
//
// Where gSOAP's output does not go straight into its buffer -- the counting pass of
// Content-Length (SOAP_IO_LENGTH), unbuffered output, a send filter -- items are formatted
// into a block on the stack and handed to soap_send_raw, which counts, filters or sends
// them as it would the generated writer's bytes.
#pragma once

#include <cstring>
#include <vector>

#include "item_text.hpp"
#include "stdsoap2.h"

namespace tb {

inline bool can_write_items(const struct soap *soap) {
  if (soap->mode & (SOAP_XML_INDENT | SOAP_XML_DEFAULTNS | SOAP_XML_CANONICAL | SOAP_XML_DOM))
    return false;
  if (soap->ns != 1 || soap->feltbegout || soap->feltendout || soap->wsuid || soap->nlist ||
      soap->level >= soap->maxlevel || soap->mustUnderstand || soap->encoding || soap->null ||
      soap->position)
    return false;
  // soap_embedded_id is -1 (no id attribute) without looking anything up
  if ((soap->encodingStyle || (soap->omode & SOAP_XML_GRAPH)) && !(soap->omode & SOAP_XML_TREE))
    return false;
  for (const struct soap_attribute *a = soap->attributes; a; a = a->next)
    if (a->visible) return false;
  return true;
}

// tag: a string literal, so that the tags' sizes are constants and their copies are a few
// moves each, not calls of memcpy (a third of the writer's time per item)
template <typename T, size_t N>
int write_items(struct soap *soap, const char (&tag)[N], const std::vector<T> &items) {
  constexpr size_t tag_len = N - 1, open_len = tag_len + 2, close_len = tag_len + 3;
  constexpr size_t max_item = open_len + item_text::kMaxChars<T> + close_len;
  char open[open_len], close[close_len];
  open[0] = '<';
  std::memcpy(open + 1, tag, tag_len);
  open[tag_len + 1] = '>';
  close[0] = '<', close[1] = '/';
  std::memcpy(close + 2, tag, tag_len);
  close[tag_len + 2] = '>';
  auto put = [&](char *p, T v) {
    std::memcpy(p, open, open_len);
    p = item_text::write(p + open_len, v);
    std::memcpy(p, close, close_len);
    return p + close_len;
  };

  const bool direct = (soap->mode & SOAP_IO) != SOAP_IO_FLUSH &&
                      !(soap->mode & SOAP_IO_LENGTH) && !soap->ffiltersend;
  if (direct) {
    size_t idx = soap->bufidx;
    for (const T &v : items) {
      if (sizeof soap->buf - idx >= max_item) {
        idx = static_cast<size_t>(put(soap->buf + idx, v) - soap->buf);
        continue;
      }
      // the item that crosses the end of the buffer: as soap_send_raw splits it (fill,
      // flush, go on), so chunk sizes and flushes are the generated writer's
      char item[max_item];
      soap->bufidx = idx;
      if (soap_send_raw(soap, item, static_cast<size_t>(put(item, v) - item))) return soap->error;
      idx = soap->bufidx;
    }
    soap->bufidx = idx;
    return SOAP_OK;
  }
  char block[8192];
  size_t used = 0;
  for (const T &v : items) {
    if (sizeof block - used < max_item) {
      if (soap_send_raw(soap, block, used)) return soap->error;
      used = 0;
    }
    used = static_cast<size_t>(put(block + used, v) - block);
  }
  return soap_send_raw(soap, block, used);
}

}  // namespace tb
