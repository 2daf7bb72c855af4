// ctest: XmlGuard (src/xml_guard.hpp) refuses DTDs and deep nesting and nothing else,
// whatever the block boundaries.
#include <iostream>
#include <string>

#include "xml_guard.hpp"

namespace {

using V = tb::XmlGuard::Verdict;

// Feeds xml in blocks of `block` bytes.
V verdict(const std::string &xml, int max_depth, size_t block, bool mime = false) {
  tb::XmlGuard g(max_depth);
  if (mime) g.expect_mime();
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

void expect(const char *name, const std::string &xml, int max_depth, V want, bool mime = false) {
  for (size_t block : {size_t(1), size_t(3), size_t(7), size_t(4096)}) {
    if (verdict(xml, max_depth, block, mime) != want) {
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
  expect("quotes may hold '>', '/' and the other quote", "<r><a x='/' y=\"'>\"/><b z=\"/>\">"
         "<c/></b></r>", 3, V::ok);
  expect("a '/' inside a quoted value does not make the element empty",
         "<r><a x='/'><b><c/></b></a></r>", 4, V::ok);
  expect("... so the next level counts", "<r><a x='/'><b><c><d/></c></b></a></r>", 4, V::too_deep);
  expect("a PI may hold '<!'", "<?pi <!DOCTYPE ?><r/>", 1, V::ok);
  expect("a DOCTYPE after a long text is still refused",
         "<r>" + std::string(100000, 'x') + "<!DOCTYPE r></r>", 64, V::doctype);
  expect("a big array message passes", [] {
    std::string s = "<?xml version=\"1.0\"?><s:Envelope xmlns:s=\"e\"><s:Body><tb:sendInts>";
    for (int i = 0; i < 5000; ++i) s += "<tb:items>" + std::to_string(i * 7919 - 20000000) + "</tb:items>";
    return s + "</tb:sendInts></s:Body></s:Envelope>\r\n";
  }(), 4, V::ok);
  // MTOM: a multipart/related body; only the root part's XML is checked
  std::string binary("\x00\xff<<!DOCTYPE x", 14);  // attachment bytes that look like markup
  for (int i = 0; i < 100; ++i) binary += "<a>";
  auto mime = [&](const std::string &root) {
    return "\r\n--==b==\r\nContent-Type: application/xop+xml; type=\"text/xml\"\r\n"
           "Content-ID: <root@x>\r\n\r\n" + root +
           "\r\n--==b==\r\nContent-Type: application/octet-stream\r\nContent-ID: <ints@x>\r\n\r\n" +
           binary + "\r\n--==b==--\r\n";
  };
  const std::string root = "<?xml version=\"1.0\"?><s:Envelope xmlns:s=\"e\"><s:Body><tb:d>"
                           "<xop:Include href=\"cid:ints@x\"/></tb:d></s:Body></s:Envelope>";
  expect("MIME: binary attachments after the root part are not XML", mime(root), 4, V::ok, true);
  expect("... but the same bytes without MIME are refused", mime(root), 4, V::too_deep);
  expect("MIME: a DOCTYPE in the root part is refused",
         mime("<!DOCTYPE s [<!ENTITY a \"b\">]>" + root), 64, V::doctype, true);
  expect("MIME: deep nesting in the root part is refused", mime(nested(65)), 64, V::too_deep, true);
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
