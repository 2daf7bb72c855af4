"""The front's root is a landing page that says what each segment exercises and links examples;
every static page is sent as HTML in UTF-8."""
from __future__ import annotations

import html
import re
import urllib.parse
from email.message import Message

import pytest

from frontcheck import field, get

pytestmark = pytest.mark.timeout(180)


def content_type(headers: dict[str, str]) -> tuple[str, str | None]:
    """(media type, charset) of a response, both lower-case; charset None when absent."""
    value = next((v for k, v in headers.items() if k.lower() == "content-type"), None)
    assert value is not None, f"no Content-Type header in {headers}"
    msg = Message()
    msg["Content-Type"] = value
    charset = msg.get_param("charset")
    return msg.get_content_type(), charset.lower() if charset else None


def links(page: str) -> list[str]:
    return [html.unescape(h) for h in re.findall(r'href="([^"]+)"', page)]


def test_the_root_is_an_html_landing_page_in_utf8(front):
    status, headers, page = get(f"{front.base}/")
    assert status == 200, page
    assert content_type(headers) == ("text/html", "utf-8")
    assert "①" in page and "⑤" in page            # decoded as UTF-8, not mangled by the file encoding


def test_the_landing_page_says_what_each_segment_adds_and_links_it(front):
    _, _, page = get(f"{front.base}/")
    hrefs = links(page)
    for k in range(1, 6):
        assert f"seg/{k}" in hrefs, (k, hrefs)
    for words in ("static", "JSP", "AccessBean", "session bean", "client tier"):
        assert words in page, words
    assert "seg/5?backend=gsoap&op=sendInts&n=1000" in hrefs


def test_every_link_of_the_landing_page_answers(front, reset_fake):
    _, _, page = get(f"{front.base}/")
    for href in links(page):
        status, _, body = get(urllib.parse.urljoin(f"{front.base}/", href))
        assert status == 200, (href, body)
    assert {"backend": "gsoap", "op": "sendInts", "n": "1000"} in reset_fake.queries


def test_seg1_stays_a_static_file_sent_as_html_in_utf8(front):
    status, headers, page = get(f"{front.base}/seg/1")
    assert status == 200
    assert content_type(headers) == ("text/html", "utf-8")
    assert "ETag" in headers and "Last-Modified" in headers     # still the DefaultServlet's file
    assert field(page, "static") == "seg/1"


@pytest.mark.parametrize("k", [2, 3, 4, 5])
def test_the_jsp_segments_keep_their_html_content_type(front, reset_fake, k):
    _, headers, _ = get(f"{front.base}/seg/{k}")
    assert content_type(headers) == ("text/html", "utf-8")
