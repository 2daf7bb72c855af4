// ctest: Utf8Check (src/utf8_check.hpp) accepts well-formed UTF-8 and Latin-1-declared
// bodies, and refuses every kind of malformed sequence, whatever the block boundaries.
#include <algorithm>
#include <iostream>
#include <string>

#include "utf8_check.hpp"

namespace {

// Feeds body in blocks of `block` bytes, then finishes: true when accepted.
bool accepted(const std::string &body, size_t block) {
  tb::Utf8Check c;
  c.reset();
  bool ok = true;
  for (size_t i = 0; i < body.size() && ok; i += block)
    ok = c.feed(body.data() + i, std::min(block, body.size() - i));
  return ok && c.finish();
}

int failures = 0;

void expect(const char *name, const std::string &body, bool want) {
  for (size_t block : {size_t(1), size_t(2), size_t(5), size_t(4096)}) {
    if (accepted(body, block) != want) {
      ++failures;
      std::cerr << "FAIL " << name << " (blocks of " << block << ")\n";
    }
  }
}

std::string doc(const std::string &text, const std::string &decl = "<?xml version=\"1.0\"?>") {
  return decl + "<a>" + text + "</a>";
}

}  // namespace

int main() {
  expect("ASCII", doc("hello"), true);
  expect("2, 3 and 4-byte sequences", doc("\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF"), true);
  expect("BOM and no declaration", "\xEF\xBB\xBF<a>\xC3\xA9</a>", true);
  expect("a short body without declaration is still checked", "<a>\xFF</a>", false);
  expect("stray continuation byte", doc("\x80"), false);
  expect("0xFF", doc("a\xFF" "b"), false);
  expect("overlong 2-byte (C0 80)", doc("\xC0\x80"), false);
  expect("overlong 3-byte (E0 80 80)", doc("\xE0\x80\x80"), false);
  expect("overlong 4-byte (F0 80 80 80)", doc("\xF0\x80\x80\x80"), false);
  expect("surrogate (ED A0 80)", doc("\xED\xA0\x80"), false);
  expect("above U+10FFFF (F4 90 80 80)", doc("\xF4\x90\x80\x80"), false);
  expect("truncated sequence", doc("\xE2\x82"), false);
  expect("invalid byte inside the declaration's first bytes", "<?xml \xFF?><a/>", false);
  expect("Latin-1 declared: not checked",
         doc("caf\xE9", "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>"), true);
  expect("Latin-1 declared, more than the held bytes in one block",
         doc(std::string(300, 'x') + "caf\xE9", "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>"), true);
  expect("latin1 declared: not checked", doc("\xFF", "<?xml version='1.0' encoding='latin1'?>"), true);
  expect("UTF-8 declared: checked", doc("\xFF", "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"), false);
  expect("an encoding named after the declaration does not count",
         doc("\xFF <b encoding=\"latin1\"/>"), false);
  {  // found by the fuzz harness: the held bytes end right after "encoding="
    std::string head = "<?xml version=\"1.0\"";
    head += std::string(tb::Utf8Check::kPrologBytes - head.size() - 9, ' ') + "encoding=";
    expect("the declaration cut right after encoding=", head + "\"UTF-8\"?><a>\xFF</a>", false);
  }
  std::cout << (failures ? "FAILED\n" : "utf8 check: all cases pass\n");
  return failures ? 1 : 0;
}
