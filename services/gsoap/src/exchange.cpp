// The calls of tb-gsoap-client, one function per contract operation (exchange.hpp).
#include "exchange.hpp"

#include "payload.hpp"

namespace tb {
namespace {

template <typename T>
std::string hex_of(const std::vector<T> &items) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (const T &v : items) {
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &v, sizeof(T));  // little-endian hosts (x86-64, arm64)
    for (unsigned char b : bytes) out += {digits[b >> 4], digits[b & 15]};
  }
  return out;
}

template <typename T>
PayloadDigest digest_of(const char *kind, const std::vector<T> &items) {
  PayloadDigest d;
  d.kind = kind;
  d.count = static_cast<int64_t>(items.size());
  d.checksum = checksum(items);
  if (items.size() <= 16) d.items_hex = hex_of(items);
  return d;
}

}  // namespace

PayloadDigest digest_payload(const std::string &op, int n, uint64_t seed) {
  const size_t count = static_cast<size_t>(n);
  if (op == "sendBytes") return digest_of("byte", bytes_items(count, seed));
  if (op == "sendFloats") return digest_of("float", float_items(count, seed));
  if (op == "sendDoubles") return digest_of("double", double_items(count, seed));
  if (op == "sendInts" || op == "sendIntBuffer" || op == "echoInts")
    return digest_of("int", int_items(count, seed));
  return PayloadDigest();  // ping, work: no items
}

Exchange::Exchange(const ClientOptions &o) : n_(o.n) {
  const size_t n = static_cast<size_t>(o.n);
  const std::string &op = o.op;
  call_ = &Exchange::ping;
  if (op == "sendBytes") {
    bytes_.items = bytes_items(n, o.seed);
    expected_ = checksum(bytes_.items);
    call_ = &Exchange::send_bytes;
  } else if (op == "sendInts") {
    ints_.items = int_items(n, o.seed);
    expected_ = checksum(ints_.items);
    call_ = &Exchange::send_ints;
  } else if (op == "sendFloats") {
    floats_.items = float_items(n, o.seed);
    expected_ = checksum(floats_.items);
    call_ = &Exchange::send_floats;
  } else if (op == "sendDoubles") {
    doubles_.items = double_items(n, o.seed);
    expected_ = checksum(doubles_.items);
    call_ = &Exchange::send_doubles;
  } else if (op == "sendIntBuffer") {
    buffer_ = pack_ints(int_items(n, o.seed));
    expected_ = fnv1a(buffer_.data(), buffer_.size());
    int_buffer_.data.__ptr = buffer_.data();
    int_buffer_.data.__size = static_cast<int>(buffer_.size());
    call_ = &Exchange::send_int_buffer;
  } else if (op == "echoInts") {
    echo_.items = int_items(n, o.seed);
    call_ = &Exchange::echo_ints;
  } else if (op == "work") {
    work_.cpuMicros = o.cpu_us;
    work_.waitMicros = o.wait_us;
    call_ = &Exchange::work;
  }
}

int Exchange::call(TestbedSoapBindingProxy &proxy, Outcome *out) {
  *out = Outcome();
  return (this->*call_)(proxy, out);
}

void Exchange::expect_digest(const tb__Digest &got, Outcome *out) const {
  out->count = got.count;
  out->checksum = got.checksum;
  out->expected_checksum = expected_;
  out->checked = got.count == n_ && got.checksum == expected_;
}

int Exchange::ping(TestbedSoapBindingProxy &proxy, Outcome *out) {
  _tb__ping req;
  _tb__pingResponse resp;
  int err = proxy.ping(&req, resp);
  out->checked = err == SOAP_OK;
  return err;
}

int Exchange::send_bytes(TestbedSoapBindingProxy &proxy, Outcome *out) {
  tb__Digest resp;
  int err = proxy.sendBytes(&bytes_, resp);
  if (!err) expect_digest(resp, out);
  return err;
}

int Exchange::send_ints(TestbedSoapBindingProxy &proxy, Outcome *out) {
  tb__Digest resp;
  int err = proxy.sendInts(&ints_, resp);
  if (!err) expect_digest(resp, out);
  return err;
}

int Exchange::send_floats(TestbedSoapBindingProxy &proxy, Outcome *out) {
  tb__Digest resp;
  int err = proxy.sendFloats(&floats_, resp);
  if (!err) expect_digest(resp, out);
  return err;
}

int Exchange::send_doubles(TestbedSoapBindingProxy &proxy, Outcome *out) {
  tb__Digest resp;
  int err = proxy.sendDoubles(&doubles_, resp);
  if (!err) expect_digest(resp, out);
  return err;
}

int Exchange::send_int_buffer(TestbedSoapBindingProxy &proxy, Outcome *out) {
  tb__Digest resp;
  int err = proxy.sendIntBuffer(&int_buffer_, resp);
  if (!err) expect_digest(resp, out);
  return err;
}

int Exchange::echo_ints(TestbedSoapBindingProxy &proxy, Outcome *out) {
  _tb__echoIntsResponse resp;
  int err = proxy.echoInts(&echo_, resp);
  if (err) return err;
  out->count = static_cast<int64_t>(resp.items.size());
  out->echo_equal = resp.items == echo_.items;
  out->checked = *out->echo_equal;
  return err;
}

int Exchange::work(TestbedSoapBindingProxy &proxy, Outcome *out) {
  _tb__workResponse resp;
  int err = proxy.work(&work_, resp);
  if (err) return err;
  out->served = true;
  out->implementation = resp.implementation;
  out->host = resp.host;
  out->pid = resp.pid;
  out->checked = !resp.implementation.empty() && !resp.host.empty() && resp.pid > 0;
  return err;
}

}  // namespace tb
