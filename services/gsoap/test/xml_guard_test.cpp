// ctest: XmlGuard (src/xml_guard.hpp) refuses DTDs and deep nesting and nothing else,
// whatever the block boundaries.
#include <iostream>
#include <string>

#include "xml_guard.hpp"

namespace {

using V = tb::XmlGuard::Verdict;

// Feeds xml in blocks of `block` bytes.
V verdict(const std::string &xml, int max_depth, size_t block) {
  tb::XmlGuard g(max_depth);
  for (size_t i = 0; i < xml.size(); i += block) g.feed(xml.data() + i, std::min(block, xml.size() - i));
  return g.verdict();
}

std::string nested(int depth) {
  std::string s;
  for (int i = 0; i < depth; ++i) s += "<a x=\"1>2\">";
  for (int i = 0; i < depth; ++i) s += "</a>";
  return s;
}

int failures = 0;

void expect(const char *name, const std::string &xml, int max_depth, V want) {
  for (size_t block : {size_t(1), size_t(3), size_t(7), size_t(4096)}) {
    if (verdict(xml, max_depth, block) != want) {
      ++failures;
      std::cerr << "FAIL " << name << " (blocks of " << block << ")\n";
    }
  }
}

}  // namespace

int main() {
  const std::string envelope =
      "<?xml version=\"1.0\"?><soap:Envelope xmlns:soap=\"s\"><soap:Body><tb:ping/>"
      "<!-- a <!DOCTYPE in a comment --><x><![CDATA[ <!DOCTYPE <<< ]]></x>"
      "<y a='/>' b=\"<\"/></soap:Body></soap:Envelope>";
  expect("a SOAP message passes", envelope, 4, V::ok);
  expect("a DOCTYPE is refused", "<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY a \"b\">]><x/>", 64,
         V::doctype);
  expect("an ENTITY declaration is refused", "<x><!ENTITY a \"b\"></x>", 64, V::doctype);
  expect("nesting at the limit passes", nested(64), 64, V::ok);
  expect("nesting over the limit is refused", nested(65), 64, V::too_deep);
  expect("empty elements do not nest", std::string(1000, ' ') + "<r>" + [] {
    std::string s;
    for (int i = 0; i < 1000; ++i) s += "<e/>";
    return s;
  }() + "</r>", 2, V::ok);
  // gSOAP ends a comment at its first "--" and the '>' after, a PI at its first '?' and the
  // '>' after, and skips blanks after '<': a DOCTYPE right after must still be seen
  expect("a DOCTYPE after a comment gSOAP ends at '-- >'",
         "<?xml version=\"1.0\"?><!-- -- > <!DOCTYPE r []> <!-- --><x/>", 64, V::doctype);
  expect("a DOCTYPE after a PI gSOAP ends at '? >'", "<?pi ? > <!DOCTYPE r []> <?x?><x/>", 64, V::doctype);
  expect("a DOCTYPE after '< !--'", "<x>< !-- \" -- > <!DOCTYPE r> <!-- \" --></x>", 64, V::doctype);
  expect("nesting after a comment gSOAP ends early", "<r><!-- -- > " + nested(10) + " --></r>", 8,
         V::too_deep);
  expect("'<' and '>' inside a comment's tail are balanced", "<r><!-- -- <a> --><b/></r>", 2, V::ok);
  std::cout << (failures ? "FAILED\n" : "xml guard: all cases pass\n");
  return failures ? 1 : 0;
}
