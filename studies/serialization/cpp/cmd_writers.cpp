// `writers`: the same N ints written into memory five ways (docs/method.md, "Serialization cost": "a
// hand-written writer vs printf-style formatting"):
//   printf   snprintf("<tb:items>%d</tb:items>") per item
//   gsoap    gSOAP's generated serializer of the request (soap_out__tb__sendInts on a
//            context with the generated serializers: soapcpp2's soap_out_tb__IntItems and
//            soap_out_std__vectorTemplateOfint, as the proxy calls them) inside an empty
//            envelope, into gSOAP's buffer, flushed to memory
//   tuned    the same call on a context with the tuned serializers (services/gsoap/custom:
//            the items formatted straight into gSOAP's buffer)
//   hand     the tags copied and the digits written by hand (two at a time from a table)
//   itoa     the digits alone, back to back: the lower bound every other figure is
//            compared with (no tags, no library)
// printf, gsoap, tuned and hand must produce the same bytes (checked; exit 1 if not).
#include <cstring>
#include <iostream>

#include "memio.hpp"
#include "options.hpp"
#include "payload.hpp"
#include "serializers.hpp"
#include "soapH.h"

namespace tb {
namespace {

const char kOpen[] = "<tb:items>";
const char kClose[] = "</tb:items>";
const size_t kOpenLen = sizeof kOpen - 1, kCloseLen = sizeof kClose - 1;
const size_t kMaxItemBytes = kOpenLen + 11 + kCloseLen;  // "-2147483648" is 11 characters

const char kPairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

// The decimal digits of v at p; returns the end. Two digits per step from the table.
inline char *write_int(char *p, int32_t v) {
  uint32_t u = static_cast<uint32_t>(v);
  if (v < 0) *p++ = '-', u = 0u - u;
  int len = 1;
  for (uint32_t t = u; t >= 10; t /= 10) ++len;
  char *end = p + len;
  char *q = end;
  while (u >= 100) {
    const uint32_t r = u % 100;
    u /= 100;
    q -= 2;
    std::memcpy(q, kPairs + 2 * r, 2);
  }
  if (u >= 10) {
    q -= 2;
    std::memcpy(q, kPairs + 2 * u, 2);
  } else {
    *--q = static_cast<char>('0' + u);
  }
  return end;
}

// The items in gSOAP's output: from the first <tb:items> to the last </tb:items>.
std::string items_of(const std::string &envelope) {
  const size_t first = envelope.find(kOpen), last = envelope.rfind(kClose);
  if (first == std::string::npos || last == std::string::npos) return std::string();
  return envelope.substr(first, last + kCloseLen - first);
}

}  // namespace

int run_writers(const Options &o) {
  tb__IntItems request;
  request.items = int_items(static_cast<size_t>(o.n), o.seed);
  const std::vector<int32_t> &ints = request.items;
  const std::vector<std::string> names = {"printf", "gsoap", "tuned", "hand", "itoa"};
  std::vector<std::string> out(names.size(), std::string(ints.size() * kMaxItemBytes + 64, '\0'));
  std::vector<size_t> used(names.size(), 0);

  // gSOAP's writer of the request into memory, with the generated or the tuned serializers
  struct Library {
    struct soap *soap = soap_new1(SOAP_IO_BUFFER);
    MemoryIo io;
    explicit Library(Serializers s) {
      io.sink(soap, true);
      use_serializers(soap, s);
    }
    // document/literal, as the proxy writes a request (soap_call_/send_ set it to NULL before
    // serializing): with gSOAP's default, SOAP encoding, every item is also looked up in the
    // multi-reference pointer table (soap_embedded_id), which the proxy's writes never do
    void literal() { soap->encodingStyle = nullptr; }
    ~Library() { soap_free(soap); }
    int64_t run(const tb__IntItems &r) {
      io.clear_out();
      const auto t0 = Clock::now();
      soap_begin(soap);
      literal();
      // inside an (empty) envelope and body, so the items carry no namespace declarations
      const int e = soap_begin_send(soap) || soap_envelope_begin_out(soap) || soap_body_begin_out(soap) ||
                    soap_out__tb__sendInts(soap, "tb:sendInts", -1, &r, "") || soap_body_end_out(soap) ||
                    soap_envelope_end_out(soap) || soap_end_send(soap);
      soap_end(soap);
      return e ? int64_t{-1} : ns_between(t0, Clock::now());
    }
  } generated(Serializers::generated), tuned(Serializers::tuned);
  std::vector<std::function<int64_t()>> runs = {
      [&] {
        const auto t0 = Clock::now();
        char *p = &out[0][0];
        for (int32_t v : ints) p += std::snprintf(p, kMaxItemBytes + 1, "<tb:items>%d</tb:items>", v);
        used[0] = static_cast<size_t>(p - out[0].data());
        return ns_between(t0, Clock::now());
      },
      [&] { return generated.run(request); },
      [&] { return tuned.run(request); },
      [&] {
        const auto t0 = Clock::now();
        char *p = &out[3][0];
        for (int32_t v : ints) {
          std::memcpy(p, kOpen, kOpenLen);
          p = write_int(p + kOpenLen, v);
          std::memcpy(p, kClose, kCloseLen);
          p += kCloseLen;
        }
        used[3] = static_cast<size_t>(p - out[3].data());
        return ns_between(t0, Clock::now());
      },
      [&] {
        const auto t0 = Clock::now();
        char *p = &out[4][0];
        for (int32_t v : ints) p = write_int(p, v);
        used[4] = static_cast<size_t>(p - out[4].data());
        return ns_between(t0, Clock::now());
      }};
  const std::vector<Samples> ns = time_rounds(o.timing, runs, names);
  const std::string printf_bytes = out[0].substr(0, used[0]), hand_bytes = out[3].substr(0, used[3]);
  const std::string gsoap_bytes = items_of(generated.io.out()), tuned_bytes = items_of(tuned.io.out());

  const bool same = printf_bytes == hand_bytes && gsoap_bytes == hand_bytes && tuned_bytes == hand_bytes;
  const double floor_ns = ns[4].median();
  Json j;
  j["impl"] = "gsoap";
  j["command"] = "writers";
  j["n"] = o.n;
  j["seed"] = o.seed;
  j["bytes"] = hand_bytes.size();
  j["itoa_bytes"] = used[4];
  j["valid"] = same;
  if (!same) j["invalid_reason"] = "the writers' outputs differ";
  Json techniques;
  for (size_t k = 0; k < names.size(); ++k) {
    Json t = ns[k].json();
    const double over = floor_ns > 0 ? ns[k].median() / floor_ns : 0.0;
    t["over_itoa"] = std::round(over * 1000) / 1000;  // 3 decimals
    techniques[names[k]] = t;
  }
  j["ns"] = techniques;
  std::cout << j.dump() << std::endl;
  return same ? 0 : 1;
}

}  // namespace tb
