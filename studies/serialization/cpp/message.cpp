// Message (message.hpp) for each of the five operations: a table of the generated
// functions per operation (one macro expansion each), and one template that uses them.
#include "message.hpp"

#include "payload.hpp"

namespace tb {
namespace {

// The generated serializer functions of one operation's request, as the proxy and the
// service call them ("-tb:op": the wrapper element without xsi:type, as doc/literal).
#define TB_OPERATION(NAME, OP)                                                              \
  struct NAME {                                                                             \
    using Request = _tb__##OP;                                                              \
    using Wrapper = struct __tb__##OP;                                                      \
    static constexpr const char *op = #OP;                                                  \
    static constexpr const char *tag = "-tb:" #OP;                                          \
    static void set(Wrapper &w, Request *r) { w.tb__##OP = r; }                            \
    static Request *get(Wrapper &w) { return w.tb__##OP; }                                 \
    static void init(struct soap *s, Wrapper &w) { soap_default___tb__##OP(s, &w); }       \
    static void mark(struct soap *s, Wrapper &w) { soap_serialize___tb__##OP(s, &w); }     \
    static int put(struct soap *s, Wrapper &w) { return soap_put___tb__##OP(s, &w, tag, ""); } \
    static bool in(struct soap *s, Wrapper &w) {                                            \
      return soap_get___tb__##OP(s, &w, tag, nullptr) != nullptr;                           \
    }                                                                                       \
    static int send(TestbedSoapBindingProxy &p, const char *e, Request *r) {                \
      return p.send_##OP(e, nullptr, r);                                                    \
    }                                                                                       \
    static int recv(TestbedSoapBindingProxy &p, tb__Digest &d) { return p.recv_##OP(d); }  \
  };
TB_OPERATION(BytesOp, sendBytes)
TB_OPERATION(IntsOp, sendInts)
TB_OPERATION(FloatsOp, sendFloats)
TB_OPERATION(DoublesOp, sendDoubles)
TB_OPERATION(BufferOp, sendIntBuffer)
#undef TB_OPERATION

// The payload of each request type and its digest (count, FNV-1a of the canonical bytes).
template <typename T>
Digest items_digest(const std::vector<T> &items) {
  return {static_cast<int64_t>(items.size()), checksum(items)};
}
Digest digest_of(const _tb__sendBytes &r) { return items_digest(r.items); }
Digest digest_of(const _tb__sendInts &r) { return items_digest(r.items); }
Digest digest_of(const _tb__sendFloats &r) { return items_digest(r.items); }
Digest digest_of(const _tb__sendDoubles &r) { return items_digest(r.items); }
Digest digest_of(const _tb__sendIntBuffer &r) {
  const size_t size = r.data.__ptr && r.data.__size > 0 ? static_cast<size_t>(r.data.__size) : 0;
  return {static_cast<int64_t>(size / 4), fnv1a(r.data.__ptr, size)};
}

template <typename Op>
class MessageOf : public Message {
 public:
  using Request = typename Op::Request;
  using Wrapper = typename Op::Wrapper;

  MessageOf(int64_t n, uint64_t seed, bool mtom) {
    op_ = Op::op;
    n_ = n;
    fill(request_, static_cast<size_t>(n), seed, mtom);
    expected_ = digest_of(request_);
  }

  int write_envelope(struct soap *soap) const override {
    Wrapper w;
    Op::init(soap, w);
    Op::set(w, const_cast<Request *>(&request_));  // only read while serializing
    soap->encodingStyle = nullptr;                 // document/literal, as the proxy
    soap_serializeheader(soap);
    Op::mark(soap, w);
    if (soap_begin_send(soap) || soap_envelope_begin_out(soap) || soap_putheader(soap) ||
        soap_body_begin_out(soap) || Op::put(soap, w) || soap_body_end_out(soap) ||
        soap_envelope_end_out(soap) || soap_end_send(soap))
      return soap->error;
    return SOAP_OK;
  }

  int read_envelope(struct soap *soap, Digest *got) const override {
    Wrapper w;
    Op::init(soap, w);
    if (soap_begin_recv(soap) || soap_envelope_begin_in(soap) || soap_recv_header(soap) ||
        soap_body_begin_in(soap))
      return soap->error;
    if (!Op::in(soap, w)) return soap->error ? soap->error : SOAP_TAG_MISMATCH;
    if (soap_body_end_in(soap) || soap_envelope_end_in(soap) || soap_end_recv(soap))
      return soap->error;
    *got = Op::get(w) ? digest_of(*Op::get(w)) : Digest{};
    return SOAP_OK;
  }

  int send(TestbedSoapBindingProxy &proxy, const char *endpoint) override {
    return Op::send(proxy, endpoint, &request_);
  }

  int receive(TestbedSoapBindingProxy &proxy, Digest *got) override {
    tb__Digest d;
    if (Op::recv(proxy, d)) return proxy.soap->error;
    *got = {d.count, d.checksum};
    return SOAP_OK;
  }

 private:
  void fill(_tb__sendBytes &r, size_t n, uint64_t seed, bool) {
    r.items = bytes_items(n, seed);
    raw_bytes_ = n;
  }
  void fill(_tb__sendInts &r, size_t n, uint64_t seed, bool) {
    r.items = int_items(n, seed);
    raw_bytes_ = 4 * n;
  }
  void fill(_tb__sendFloats &r, size_t n, uint64_t seed, bool) {
    r.items = float_items(n, seed);
    raw_bytes_ = 4 * n;
  }
  void fill(_tb__sendDoubles &r, size_t n, uint64_t seed, bool) {
    r.items = double_items(n, seed);
    raw_bytes_ = 8 * n;
  }
  void fill(_tb__sendIntBuffer &r, size_t n, uint64_t seed, bool mtom) {
    buffer_ = pack_ints(int_items(n, seed));
    r.data.__ptr = buffer_.data();
    r.data.__size = static_cast<int>(buffer_.size());
    if (mtom) {  // an MTOM attachment when the context is in SOAP_ENC_MTOM mode
      r.data.id = nullptr;  // gSOAP makes the Content-ID and the cid: href
      r.data.type = const_cast<char *>("application/octet-stream");
    }
    raw_bytes_ = buffer_.size();
  }

  Request request_;
  std::vector<unsigned char> buffer_;  // sendIntBuffer's data
};

}  // namespace

std::unique_ptr<Message> make_message(const std::string &op, int64_t n, uint64_t seed, bool mtom) {
  if (op == "sendBytes") return std::make_unique<MessageOf<BytesOp>>(n, seed, mtom);
  if (op == "sendInts") return std::make_unique<MessageOf<IntsOp>>(n, seed, mtom);
  if (op == "sendFloats") return std::make_unique<MessageOf<FloatsOp>>(n, seed, mtom);
  if (op == "sendDoubles") return std::make_unique<MessageOf<DoublesOp>>(n, seed, mtom);
  if (op == "sendIntBuffer") return std::make_unique<MessageOf<BufferOp>>(n, seed, mtom);
  return nullptr;
}

const char *message_operations() {
  return "sendBytes, sendInts, sendFloats, sendDoubles, sendIntBuffer";
}

}  // namespace tb
