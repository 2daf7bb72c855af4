// Bounds the attribute names gSOAP collects while it parses one request (MAX_XML_ATTRIBUTES).
//
// gSOAP keeps every attribute name it has read in a request in one linked list
// (soap->attributes, freed at the end of the request), walks that list to look up each
// attribute it reads, and walks it again at every element. Parse time therefore grows
// with (names) x (elements + attributes): a `ping` with 50 000 attributes kept a worker
// busy ~10 s, and 1 000 names on one element made a 300 000-item array 13x slower.
//
// The check counts gSOAP's own list -- whatever the markup tricks, it is exactly what the
// parser holds -- at every read of the body and once more when the body is parsed. Reads
// are at most kParseSliceBytes long, so the parser never gets further than that past the
// limit before it is stopped (context.cpp). Duplicate names on one element are a syntax
// error for gSOAP, so the limit also bounds the attributes of one element.
#pragma once

#include <cstddef>

struct soap;

namespace tb {

// The most body bytes gSOAP is handed per read (and so parses between two checks).
constexpr size_t kParseSliceBytes = 8192;

// True when the current request's attribute list holds more than max_names names.
bool attribute_names_over(const struct soap *soap, int max_names);

}  // namespace tb
