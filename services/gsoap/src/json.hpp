// A minimal JSON object writer for the client's one-line reports: keys in insertion order,
// strings escaped, doubles rounded for humans, null for absent values.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

namespace tb {

class JsonObject {
 public:
  JsonObject &raw(const std::string &key, const std::string &json) {
    out_ += (out_.empty() ? "{" : ", ") + quote(key) + ": " + json;
    return *this;
  }
  JsonObject &str(const std::string &key, const std::string &v) { return raw(key, quote(v)); }
  JsonObject &num(const std::string &key, int64_t v) { return raw(key, std::to_string(v)); }
  JsonObject &unum(const std::string &key, uint64_t v) { return raw(key, std::to_string(v)); }
  JsonObject &dbl(const std::string &key, double v, int digits = 3) {
    if (!std::isfinite(v)) return raw(key, "null");
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return raw(key, trim(buf));
  }
  JsonObject &boolean(const std::string &key, bool v) { return raw(key, v ? "true" : "false"); }
  JsonObject &null(const std::string &key) { return raw(key, "null"); }
  template <typename T>
  JsonObject &opt_num(const std::string &key, const std::optional<T> &v) {
    return v ? raw(key, std::to_string(*v)) : null(key);
  }
  JsonObject &opt_str(const std::string &key, const std::optional<std::string> &v) {
    return v ? str(key, *v) : null(key);
  }
  JsonObject &obj(const std::string &key, const JsonObject &v) { return raw(key, v.text()); }
  std::string text() const { return out_.empty() ? "{}" : out_ + "}"; }

  static std::string quote(const std::string &s) {
    std::string out = "\"";
    for (unsigned char c : s) {
      if (c == '"' || c == '\\') out += {'\\', static_cast<char>(c)};
      else if (c == '\n') out += "\\n";
      else if (c == '\r') out += "\\r";
      else if (c == '\t') out += "\\t";
      else if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else out += static_cast<char>(c);
    }
    return out + "\"";
  }

 private:
  static std::string trim(std::string s) {  // 12.500 -> 12.5, 3.000 -> 3.0
    if (s.find('.') == std::string::npos) return s;
    while (s.size() > 1 && s.back() == '0' && s[s.size() - 2] != '.') s.pop_back();
    return s;
  }
  std::string out_;
};

}  // namespace tb
