// ctest: the tuned serializers of the contract's arrays (custom/) against the generated ones.
//  - writing: the same bytes for ints and bytes in every output mode gSOAP has (buffered,
//    stored, chunked, unbuffered, with and without the counting pass of Content-Length,
//    indented), and a counting pass that counts exactly what the real pass writes;
//  - floats and doubles: every value below -- subnormals, +-0, +-INF, NaN, 1e+-308,
//    FLT_MAX, the smallest denormals, values that need 9 and 17 digits, and 20 000 seeded
//    random bit patterns -- written by either writer and read by either reader gives the
//    value the generated serializers give (bit for bit where they round-trip: all but
//    NaN, which both read as gSOAP's one NaN);
//  - reading: crafted envelopes (odd white space, attributes, comments, CDATA, entities,
//    other prefixes, default namespaces, unbound prefixes, values out of range or in other
//    spellings, unknown elements between items, too many items, truncation) give the same
//    result -- items and checksum, or the same gSOAP error -- from both readers, whatever
//    the size of the pieces the input arrives in (1 byte to 64 KiB).
// `items_test --all-floats` also checks all 2^32 float bit patterns (minutes; the figures
// in docs/serialization.md come from it).
#include <cfloat>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "TestbedSoapBinding.nsmap"
#include "item_text.hpp"
#include "payload.hpp"
#include "serializers.hpp"
#include "soapH.h"

namespace {

using tb::Serializers;
int failures = 0;

void fail(const std::string &what) {
  ++failures;
  std::fprintf(stderr, "FAIL %s\n", what.c_str());
}

// gSOAP's fsend/frecv on memory; slice: the most bytes one receive hands out.
struct Memory {
  std::string out;
  std::string in;
  size_t pos = 0;
  size_t slice = 65536;
};
int memory_send(struct soap *soap, const char *buf, size_t len) {
  static_cast<Memory *>(soap->user)->out.append(buf, len);
  return SOAP_OK;
}
size_t memory_recv(struct soap *soap, char *buf, size_t len) {
  Memory &m = *static_cast<Memory *>(soap->user);
  const size_t n = std::min({len, m.slice, m.in.size() - m.pos});
  std::memcpy(buf, m.in.data() + m.pos, n);
  m.pos += n;
  return n;
}
struct soap *context(Serializers s, Memory &m, soap_mode mode = 0) {
  struct soap *soap = soap_new1(mode);
  soap->user = &m;
  soap->fsend = memory_send;
  soap->frecv = memory_recv;
  soap->maxoccurs = 100000;
  tb::use_serializers(soap, s);
  return soap;
}

// One request envelope of `Items` (a sendX element), as the proxy writes it.
template <typename Items>
int put(struct soap *soap, const Items &r, const char *tag);
template <> int put(struct soap *soap, const tb__ByteItems &r, const char *tag) { return soap_put__tb__sendBytes(soap, &r, tag, ""); }
template <> int put(struct soap *soap, const tb__IntItems &r, const char *tag) { return soap_put__tb__sendInts(soap, &r, tag, ""); }
template <> int put(struct soap *soap, const tb__FloatItems &r, const char *tag) { return soap_put__tb__sendFloats(soap, &r, tag, ""); }
template <> int put(struct soap *soap, const tb__DoubleItems &r, const char *tag) { return soap_put__tb__sendDoubles(soap, &r, tag, ""); }
template <typename Items>
Items *get(struct soap *soap, Items *r, const char *tag);
template <> tb__ByteItems *get(struct soap *soap, tb__ByteItems *r, const char *tag) { return soap_get__tb__sendBytes(soap, r, tag, nullptr); }
template <> tb__IntItems *get(struct soap *soap, tb__IntItems *r, const char *tag) { return soap_get__tb__sendInts(soap, r, tag, nullptr); }
template <> tb__FloatItems *get(struct soap *soap, tb__FloatItems *r, const char *tag) { return soap_get__tb__sendFloats(soap, r, tag, nullptr); }
template <> tb__DoubleItems *get(struct soap *soap, tb__DoubleItems *r, const char *tag) { return soap_get__tb__sendDoubles(soap, r, tag, nullptr); }
template <typename Items> const char *tag_of();
template <> const char *tag_of<tb__ByteItems>() { return "tb:sendBytes"; }
template <> const char *tag_of<tb__IntItems>() { return "tb:sendInts"; }
template <> const char *tag_of<tb__FloatItems>() { return "tb:sendFloats"; }
template <> const char *tag_of<tb__DoubleItems>() { return "tb:sendDoubles"; }

// The envelope with these items, in output mode `mode`; counted: first gSOAP's counting
// pass, whose count must be the bytes then written.
template <typename Items>
std::string write(Serializers s, const Items &r, soap_mode mode, bool counted = false) {
  Memory m;
  struct soap *soap = context(s, m, mode);
  soap->encodingStyle = nullptr;  // document/literal, as the proxy
  soap_begin(soap);
  int err = SOAP_OK;
  if (counted) {
    err = soap_begin_count(soap) || soap_envelope_begin_out(soap) || soap_body_begin_out(soap) ||
          put(soap, r, tag_of<Items>()) || soap_body_end_out(soap) ||
          soap_envelope_end_out(soap) || soap_end_count(soap);
  }
  const uint64_t count = soap->count;
  err = err || soap_begin_send(soap) || soap_envelope_begin_out(soap) ||
        soap_body_begin_out(soap) || put(soap, r, tag_of<Items>()) || soap_body_end_out(soap) ||
        soap_envelope_end_out(soap) || soap_end_send(soap);
  if (err)
    fail(std::string("writing with ") + tb::serializers_name(s) + " in mode " + std::to_string(mode) +
         (counted ? " (counted)" : "") + ": gSOAP error " + std::to_string(soap->error));
  if (counted && count != m.out.size() && !(mode & SOAP_IO_CHUNK))
    fail(std::string("the counting pass of ") + tb::serializers_name(s) + " counted " +
         std::to_string(count) + " bytes, the real pass wrote " + std::to_string(m.out.size()));
  soap_end(soap);
  soap_free(soap);
  return m.out;
}

// What a reader made of an envelope: gSOAP's error, or the items.
template <typename Items>
struct Read {
  int error = SOAP_OK;
  decltype(Items().items) items;
  bool operator==(const Read &o) const {
    return error == o.error && items.size() == o.items.size() &&
           (items.empty() || std::memcmp(items.data(), o.items.data(), items.size() * sizeof items[0]) == 0);
  }
};
template <typename Items>
Read<Items> read(Serializers s, const std::string &xml, size_t slice) {
  Memory m;
  m.in = xml;
  m.slice = slice;
  struct soap *soap = context(s, m);
  Items r;
  r.soap_default(soap);
  Read<Items> out;
  if (soap_begin_recv(soap) || soap_envelope_begin_in(soap) || soap_recv_header(soap) ||
      soap_body_begin_in(soap) || !get(soap, &r, tag_of<Items>()) || soap_body_end_in(soap) ||
      soap_envelope_end_in(soap) || soap_end_recv(soap))
    out.error = soap->error ? soap->error : -1;
  else
    out.items = r.items;
  soap_destroy(soap);
  soap_end(soap);
  soap_free(soap);
  return out;
}

template <typename T>
std::string hex(const std::vector<T> &v) {
  std::string s;
  char b[40];
  for (size_t i = 0; i < v.size() && i < 8; ++i) {
    uint64_t bits = 0;
    std::memcpy(&bits, &v[i], sizeof(T));
    std::snprintf(b, sizeof b, "%s%0*" PRIx64, i ? " " : "", int(2 * sizeof(T)), bits);
    s += b;
  }
  return s + (v.size() > 8 ? " ..." : "");
}

// --- writing: the same bytes --------------------------------------------------------------
template <typename Items>
void same_bytes_in_every_mode(const Items &r, const char *what) {
  const std::pair<soap_mode, const char *> modes[] = {
      {SOAP_IO_BUFFER, "buffered"}, {SOAP_IO_STORE, "stored"}, {SOAP_IO_CHUNK, "chunked"},
      {SOAP_IO_FLUSH, "unbuffered"}, {SOAP_IO_BUFFER | SOAP_XML_INDENT, "indented"},
      {SOAP_IO_BUFFER | SOAP_XML_DEFAULTNS, "default namespace"}};
  for (const auto &[mode, name] : modes)
    for (bool counted : {false, true}) {
      // gSOAP counts neither a stored nor a chunked message (soap_begin_count writes them)
      if (counted && ((mode & SOAP_IO) == SOAP_IO_STORE || (mode & SOAP_IO) == SOAP_IO_CHUNK)) continue;
      const std::string g = write(Serializers::generated, r, mode, counted);
      const std::string t = write(Serializers::tuned, r, mode, counted);
      if (g != t)
        fail(std::string(what) + ", " + name + (counted ? " with a counting pass" : "") +
             ": tuned wrote " + std::to_string(t.size()) + " bytes, generated " + std::to_string(g.size()));
    }
}

// --- floats and doubles: the generated serializers' values --------------------------------
template <typename Items>
void real_round_trips(const decltype(Items().items) &values, const char *what) {
  Items r;
  r.items = values;
  const std::string by_generated = write(Serializers::generated, r, SOAP_IO_BUFFER);
  const std::string by_tuned = write(Serializers::tuned, r, SOAP_IO_BUFFER);
  const auto reference = read<Items>(Serializers::generated, by_generated, 65536);
  if (reference.error) return fail(std::string(what) + ": the generated serializers cannot read their own envelope");
  for (size_t i = 0; i < values.size(); ++i) {  // where the generated ones round-trip: bit for bit
    const bool nan = std::isnan(values[i]);
    if (!nan && std::memcmp(&values[i], &reference.items[i], sizeof values[i]) != 0)
      fail(std::string(what) + ": the generated serializers do not round-trip item " + std::to_string(i));
  }
  for (const auto &[text, writer] : {std::pair{by_generated, "generated"}, std::pair{by_tuned, "tuned"}})
    for (Serializers s : {Serializers::generated, Serializers::tuned})
      for (size_t slice : {size_t(7), size_t(65536)}) {
        const auto got = read<Items>(s, text, slice);
        if (!(got == reference))
          fail(std::string(what) + ": written by " + writer + ", read by " + tb::serializers_name(s) +
               " (pieces of " + std::to_string(slice) + "): " + hex(got.items) + " instead of " +
               hex(reference.items));
      }
}

template <typename T>
std::vector<T> special_values() {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {T(0), -T(0), L::infinity(), -L::infinity(), L::quiet_NaN(), L::max(), -L::max(),
                      L::min(), -L::min(), L::denorm_min(), -L::denorm_min(), L::min() / 2,
                      L::denorm_min() * 3, L::min() - L::denorm_min(), L::epsilon(), T(1) + L::epsilon(),
                      T(0.1), T(1) / 3, T(2) / 3, T(16777217), T(123456789), T(1e10), T(-1e-10),
                      std::nextafter(T(1), T(2)), std::nextafter(T(1), T(0)), T(100), T(1e7), T(1e-7)};
  if (sizeof(T) == 8) {
    for (double d : {1e308, -1e308, 1e-308, -1e-308, 9007199254740993.0, 0.30000000000000004,
                     5e-324, 2.2250738585072011e-308, 1.7976931348623157e308, 123456789012345678.0})
      v.push_back(static_cast<T>(d));
  }
  tb::SplitMix64 rng(20261123);  // random bit patterns: every exponent, subnormals, NaNs
  for (int i = 0; i < 20000; ++i) {
    const uint64_t bits = rng.next();
    T x;
    std::memcpy(&x, &bits, sizeof x);
    v.push_back(x);
  }
  return v;
}

// --- reading: both readers the same, whatever the XML -------------------------------------
const char kHead[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<SOAP-ENV:Envelope "
    "xmlns:SOAP-ENV=\"http://schemas.xmlsoap.org/soap/envelope/\" "
    "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" "
    "xmlns:tb=\"http://soaptestbed.org/contract/v1\"><SOAP-ENV:Body>";
const char kTail[] = "</SOAP-ENV:Body></SOAP-ENV:Envelope>\n";

template <typename Items>
void same_reading(const std::string &body, const char *what) {
  const std::string xml = kHead + body + kTail;
  const auto reference = read<Items>(Serializers::generated, xml, 65536);
  for (Serializers s : {Serializers::generated, Serializers::tuned})
    for (size_t slice : {size_t(1), size_t(3), size_t(7), size_t(64), size_t(8192), size_t(65536)}) {
      const auto got = read<Items>(s, xml, slice);
      if (!(got == reference))
        fail(std::string(what) + ": " + tb::serializers_name(s) + " in pieces of " +
             std::to_string(slice) + ": error " + std::to_string(got.error) + " [" + hex(got.items) +
             "], generated: error " + std::to_string(reference.error) + " [" + hex(reference.items) + "]");
    }
}

std::string items(const std::vector<std::string> &values, const std::string &open = "<tb:items>",
                  const std::string &close = "</tb:items>", const std::string &between = "") {
  std::string s;
  for (const auto &v : values) s += open + v + close + between;
  return s;
}

void reading_cases() {
  const std::vector<std::string> ints = {"0", "-1", "2147483647", "-2147483648", "42", "-0", "+7",
                                         "007", "00000000000000000001"};
  const std::string plain = items(ints);
  same_reading<tb__IntItems>("<tb:sendInts>" + plain + "</tb:sendInts>", "plain ints");
  same_reading<tb__IntItems>("<tb:sendInts>\n  " + items(ints, "<tb:items>", "</tb:items>", "\n  ") + "</tb:sendInts>", "ints, indented");
  same_reading<tb__IntItems>("<tb:sendInts></tb:sendInts>", "no items");
  same_reading<tb__IntItems>("<tb:sendInts/>", "an empty element");
  for (const char *bad : {"2147483648", "-2147483649", "", " 5", "5 ", "1e3", "0x10", "+-1", "--1", "+",
                          "-", "1.0", "99999999999999999999", "&#53;", "<![CDATA[5]]>", "5<!-- c -->6",
                          "\t7\t", "\xEF\xBC\x95"})
    same_reading<tb__IntItems>("<tb:sendInts>" + items({"1", bad, "2"}) + "</tb:sendInts>",
                               (std::string("an int item '") + bad + "'").c_str());
  const std::pair<const char *, const char *> markup[] = {
      {"<tb:items>1</tb:items><tb:items xsi:type=\"xsd:int\">2</tb:items><tb:items>3</tb:items>", "an item with xsi:type"},
      {"<tb:items>1</tb:items><tb:items xsi:type=\"xsd:string\">2</tb:items>", "an item with a wrong xsi:type"},
      {"<tb:items a=\"1\">1</tb:items><tb:items>2</tb:items>", "an item with an attribute"},
      {"<x:items xmlns:x=\"http://soaptestbed.org/contract/v1\">1</x:items><x:items>2</x:items>", "a prefix bound on the first item only"},
      {"<x:items xmlns:x=\"http://soaptestbed.org/contract/v1\">1</x:items><tb:items>2</tb:items><tb:items>3</tb:items>", "prefixes mixed"},
      {"<y:items>1</y:items>", "an unbound prefix"},
      {"<tb:items>1</tb:items><other:items xmlns:other=\"urn:other\">2</other:items><tb:items>3</tb:items>", "an item of another namespace"},
      {"<tb:items>1</tb:items><tb:unknown>9</tb:unknown><tb:items>3</tb:items>", "an unknown element between items"},
      {"<tb:items>1</tb:items><!-- a comment --><tb:items>2</tb:items>", "a comment between items"},
      {"<tb:items>1</tb:items ><tb:items>2</tb:items>", "white space in an end tag"},
      {"<tb:items>1</tb:item><tb:items>2</tb:items>", "a mismatched end tag (gSOAP does not check it)"},
      {"<tb:items >1</tb:items>< tb:items>2</tb:items>", "white space in start tags"},
      {"<tb:items/><tb:items>2</tb:items>", "an empty item"},
      {"<tb:items>1</tb:items>\x01<tb:items>2</tb:items>", "a control character between items"},
      {"<tb:items id=\"a\">1</tb:items><tb:items href=\"#a\"/>", "SOAP-encoding id and href"},
      {"<tb:items>1</tb:items><tb:items>2", "a truncated item"},
      {"<tb:items>1</tb:items><tb:items>2</tb:items", "a truncated end tag"},
  };
  for (const auto &[body, what] : markup)
    same_reading<tb__IntItems>(std::string("<tb:sendInts>") + body + "</tb:sendInts>", what);
  same_reading<tb__IntItems>("<tb:sendInts xmlns=\"http://soaptestbed.org/contract/v1\">" +
                                 items(ints, "<items>", "</items>") + "</tb:sendInts>",
                             "the default namespace");
  same_reading<tb__IntItems>("<tb:sendInts>" + items(ints, "<items>", "</items>") + "</tb:sendInts>",
                             "no namespace");
  same_reading<tb__IntItems>("<n:sendInts xmlns:n=\"http://soaptestbed.org/contract/v1\">" +
                                 items(ints, "<n:items>", "</n:items>") + "</n:sendInts>",
                             "another prefix");
  same_reading<tb__IntItems>("<tb:sendInts xsi:type=\"tb:IntItems\">" + plain + "</tb:sendInts>",
                             "xsi:type on the element");
  std::vector<std::string> many(300, "5");
  same_reading<tb__IntItems>("<tb:sendInts>" + items(many) + "</tb:sendInts>", "300 items");
  std::vector<std::string> too_many(100002, "5");
  same_reading<tb__IntItems>("<tb:sendInts>" + items(too_many) + "</tb:sendInts>",
                             "more items than maxoccurs");
  for (const char *v : {"0", "255", "256", "-0", "+1", "-1", "007", "1000", " 1", ""})
    same_reading<tb__ByteItems>("<tb:sendBytes>" + items({"3", v}) + "</tb:sendBytes>",
                                (std::string("a byte item '") + v + "'").c_str());
  for (const char *v : {"1.5", "-0", "0", "+1.5", "1e+20", "1E-45", "1e-46", "1e39", "-1e39",
                        "3.4028235e38", "3.4028236e38", "INF", "-INF", "+INF", "inf", "Infinity",
                        "NaN", "nan", "nan(1)", "0x1p3", ".5", "5.", "1e", "e5", "-.5e-3", "1.0000000596046448",
                        "16777217", "0.100000001", "1.17549435E-38", "1.40129846E-45", "7.006492e-46", "  2.5 "})
    same_reading<tb__FloatItems>("<tb:sendFloats>" + items({"1", v}) + "</tb:sendFloats>",
                                 (std::string("a float item '") + v + "'").c_str());
  for (const char *v : {"1.5", "-0", "1e308", "1e309", "-1e309", "4.9406564584124654E-324", "2e-324",
                        "2.4703282292062328e-324", "1.7976931348623157e308", "1.7976931348623159e308",
                        "INF", "NaN", "0x1p-1074", "0.30000000000000004", "9007199254740993",
                        "123456789012345678901234567890"})
    same_reading<tb__DoubleItems>("<tb:sendDoubles>" + items({"1", v}) + "</tb:sendDoubles>",
                                  (std::string("a double item '") + v + "'").c_str());
}

// --- all 2^32 floats (--all-floats) -------------------------------------------------------
// Every finite float written by the tuned writer (shortest round trip) and read back by the
// tuned reader (from_chars<float>: must give the same bits) and by the generated reader
// ((float)strtod, which rounds twice: counted, not required); and every 64th written as the
// generated writer writes it (%.9G) and read by the tuned reader (must give the same bits).
void all_floats() {
  uint64_t finite = 0, tuned_ok = 0, generated_reads_tuned = 0, sampled = 0, tuned_reads_generated = 0;
  char buf[64];
  for (uint64_t bits = 0; bits <= 0xFFFFFFFFull; ++bits) {
    const uint32_t b32 = static_cast<uint32_t>(bits);
    float f;
    std::memcpy(&f, &b32, 4);
    if (!std::isfinite(f)) continue;
    ++finite;
    char *end = tb::item_text::write(buf, f);
    *end = '\0';
    float back = 0;
    if (tb::item_text::read(buf, end, back) && std::memcmp(&back, &f, 4) == 0) ++tuned_ok;
    const float g = static_cast<float>(std::strtod(buf, nullptr));  // gSOAP's reader
    if (std::memcmp(&g, &f, 4) == 0) ++generated_reads_tuned;
    else if (finite - tuned_ok < 10 && finite - generated_reads_tuned < 10)
      std::fprintf(stderr, "  (float)strtod(\"%s\") is not %08" PRIx32 "\n", buf, b32);
    if ((bits & 63) == 0) {
      ++sampled;
      std::snprintf(buf, sizeof buf, "%.9G", static_cast<double>(f));  // gSOAP's writer
      if (tb::item_text::read(buf, buf + std::strlen(buf), back) && std::memcmp(&back, &f, 4) == 0)
        ++tuned_reads_generated;
    }
    if ((bits & 0x0FFFFFFF) == 0) std::fprintf(stderr, "  ... %" PRIu64 " / 16\n", bits >> 28);
  }
  std::printf("all finite floats: %" PRIu64 "\n", finite);
  std::printf("  tuned writer -> tuned reader, same bits: %" PRIu64 "\n", tuned_ok);
  std::printf("  tuned writer -> (float)strtod (gSOAP's reader), same bits: %" PRIu64 "\n", generated_reads_tuned);
  std::printf("  every 64th: %%.9G (gSOAP's writer) -> tuned reader, same bits: %" PRIu64 " of %" PRIu64 "\n",
              tuned_reads_generated, sampled);
  if (tuned_ok != finite || tuned_reads_generated != sampled) fail("all floats");
}

}  // namespace

int main(int argc, char **argv) {
  tb__IntItems ints;
  ints.items = tb::int_items(5000, 7);
  ints.items.insert(ints.items.end(), {0, -1, 2147483647, -2147483647 - 1, 10, 99, 100});
  same_bytes_in_every_mode(ints, "5 007 ints");
  tb__IntItems no_ints;
  same_bytes_in_every_mode(no_ints, "no ints");
  tb__ByteItems bytes;
  bytes.items = tb::bytes_items(3000, 7);
  same_bytes_in_every_mode(bytes, "3 000 bytes");
  for (soap_mode mode : {SOAP_IO_BUFFER, SOAP_IO_FLUSH}) {  // the counting pass of floats
    tb__DoubleItems doubles;
    doubles.items = special_values<double>();
    write(Serializers::tuned, doubles, mode, true);
    tb__FloatItems floats;
    floats.items = special_values<float>();
    write(Serializers::tuned, floats, mode, true);
  }
  real_round_trips<tb__FloatItems>(special_values<float>(), "floats");
  real_round_trips<tb__DoubleItems>(special_values<double>(), "doubles");
  reading_cases();
  if (argc > 1 && std::strcmp(argv[1], "--all-floats") == 0) all_floats();
  if (failures) {
    std::fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  std::printf("tuned and generated serializers agree\n");
  return 0;
}
