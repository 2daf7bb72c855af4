"""A SOAP service the project did not write, read from its WSDL — safely — and its operations'
requests written as templates the user may edit (`./testbed service sample|check`,
docs/own-service.md).

Reading (zeep, a maintained WSDL/XSD library, with a transport of our own):
  - a WSDL is an http(s) URL or a local file; the documents it imports or includes are fetched
    only from where the WSDL itself came from — the same scheme, host and port, or files under
    the WSDL file's own folder — anything else is refused with its name;
  - each document at most MAX_DOCUMENT_BYTES, at most MAX_DOCUMENTS in all, each fetched within
    TIMEOUT_S; a document imported a second time (imports in a loop) is refused;
  - no DTD, no entities (zeep's forbid_dtd / forbid_entities);
  - SOAP 1.1 or 1.2 bindings only, document/literal or rpc/literal (SOAP encoding refused).

A template is the input element of an operation (the SOAP Body's content) as XML, with a value
of its type in every simple element and the repeated elements (arrays) once, marked
tb:repeat="${n}" (xmlns:tb="urn:soap-testbed:template"): expanded, each is repeated n times and
every ${name} replaced by its parameter. `check` expands a template and reads it back through
the schema (zeep, strict): an element the schema does not have, or a value its type refuses, is
reported with where it is.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin, urlparse

MAX_DOCUMENT_BYTES = 5 * 1024 * 1024
MAX_DOCUMENTS = 32
TIMEOUT_S = 10.0
TEMPLATE_NS = "urn:soap-testbed:template"
REPEAT = f"{{{TEMPLATE_NS}}}repeat"
PARAM = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
SOAP_BINDINGS = {"http://schemas.xmlsoap.org/wsdl/soap/": "1.1", "http://schemas.xmlsoap.org/wsdl/soap12/": "1.2"}
MAX_DEPTH = 12            # a recursive type is written this deep, no deeper


class ServiceError(ValueError):
    """The WSDL, the operation or the template cannot be used; the text says why and where."""


@dataclass
class Operation:
    name: str
    style: str                       # document | rpc
    soap_action: str | None
    body: object                     # zeep's input element (the SOAP Body's content)
    output: object | None


@dataclass
class Service:
    location: str
    soap: str                        # 1.1 | 1.2
    endpoint: str | None             # the port's soap:address
    binding: str
    operations: dict[str, Operation] = field(default_factory=dict)
    documents: list[str] = field(default_factory=list)

    def operation(self, name: str | None) -> Operation:
        if name is None:
            if len(self.operations) == 1:
                return next(iter(self.operations.values()))
            raise ServiceError(f"{self.location}: name the operation (--operation): {', '.join(self.operations)}")
        if name not in self.operations:
            raise ServiceError(f"{self.location}: no operation {name!r}; it has {', '.join(self.operations) or 'none'}")
        return self.operations[name]


def _origin(location: str) -> tuple[str, str]:
    """(kind, what may be fetched): ("url", scheme://host:port) or ("file", the folder)."""
    u = urlparse(location)
    if u.scheme in ("http", "https"):
        port = u.port or (443 if u.scheme == "https" else 80)
        return "url", f"{u.scheme}://{(u.hostname or '').lower()}:{port}"
    path = Path(u.path if u.scheme == "file" else location).expanduser().resolve()
    return "file", str(path.parent)


def _transport(location: str):
    """A zeep Transport that fetches only what the WSDL's location allows (module doc)."""
    import requests
    from zeep.transports import Transport

    kind, allowed = _origin(location)

    class Guarded(Transport):
        def __init__(self):
            super().__init__(timeout=TIMEOUT_S, operation_timeout=TIMEOUT_S)
            self.loaded: list[str] = []
            self.contents: list[bytes] = []

        def load(self, url):
            if not url:
                raise ServiceError("a document with no location was imported")
            k, where = _origin(url)
            inside = (k == kind and (where == allowed if k == "url" else
                                     os.path.commonpath([where, allowed]) == allowed))
            if not inside:
                raise ServiceError(f"{url}: imported from outside the WSDL's own location ({allowed}): refused")
            if url in self.loaded:
                raise ServiceError(f"{url}: imported a second time (imports in a loop: "
                                   + " → ".join(self.loaded + [url]) + ")")
            if len(self.loaded) >= MAX_DOCUMENTS:
                raise ServiceError(f"{url}: more than {MAX_DOCUMENTS} documents imported: refused")
            self.loaded.append(url)
            data = self._fetch(url) if k == "url" else self._read(url)
            self.contents.append(data)
            return data

        def _read(self, url) -> bytes:
            u = urlparse(url)
            path = Path(u.path if u.scheme == "file" else url).expanduser()
            try:
                if path.stat().st_size > MAX_DOCUMENT_BYTES:
                    raise ServiceError(f"{url}: larger than {MAX_DOCUMENT_BYTES // 2 ** 20} MiB: refused")
                return path.read_bytes()
            except OSError as e:
                raise ServiceError(f"{url}: cannot be read ({e.strerror or e})") from None

        def _fetch(self, url) -> bytes:
            try:
                with self.session.get(url, timeout=TIMEOUT_S, stream=True, allow_redirects=False) as r:
                    if r.is_redirect:
                        raise ServiceError(f"{url}: redirected to {r.headers.get('Location')}: give that URL")
                    if r.status_code >= 400:
                        raise ServiceError(f"{url}: HTTP {r.status_code} {r.reason}")
                    out = bytearray()
                    for chunk in r.iter_content(65536):
                        out += chunk
                        if len(out) > MAX_DOCUMENT_BYTES:
                            raise ServiceError(f"{url}: larger than {MAX_DOCUMENT_BYTES // 2 ** 20} MiB: refused")
                    return bytes(out)
            except requests.RequestException as e:
                raise ServiceError(f"{url}: cannot be fetched ({type(e).__name__}: {e})") from None
    return Guarded()


def _root_tag(data: bytes) -> str | None:
    from lxml import etree
    try:
        return etree.fromstring(data, etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)).tag
    except etree.XMLSyntaxError:
        return None


def _encoded(contents: list[bytes]) -> bool:
    """Whether a binding of the documents uses SOAP encoding (use="encoded")."""
    from lxml import etree
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    for data in contents:
        try:
            root = etree.fromstring(data, parser)
        except etree.XMLSyntaxError:
            continue
        for ns in SOAP_BINDINGS:
            if root.xpath("//*[local-name()='body' and namespace-uri()=$ns and @use='encoded']", ns=ns):
                return True
    return False


def read(location: str) -> Service:
    """The WSDL at location, read within the limits of the module doc; ServiceError with why."""
    import zeep
    from lxml import etree
    from zeep import exceptions as zx
    from zeep.settings import Settings
    if not location:
        raise ServiceError("no WSDL given")
    if urlparse(location).scheme not in ("http", "https", "file", ""):
        raise ServiceError(f"{location}: a WSDL is an http(s) URL or a file")
    transport = _transport(location)
    settings = Settings(strict=True, forbid_dtd=True, forbid_entities=True, forbid_external=False,
                        xml_huge_tree=False)
    try:
        client = zeep.Client(location, transport=transport, settings=settings)
    except ServiceError:
        raise
    except (zx.DTDForbidden, zx.EntitiesForbidden) as e:
        raise ServiceError(f"{location}: a document declares a DTD or entities ({type(e).__name__}): refused") from None
    except (zx.XMLSyntaxError, etree.XMLSyntaxError) as e:
        raise ServiceError(f"{location}: not XML ({e}); an HTML page or an error page?") from None
    except RecursionError:
        raise ServiceError(f"{location}: its schemas nest beyond what can be read (a loop?): refused") from None
    except Exception as e:
        raise ServiceError(f"{location}: not a WSDL that can be read ({type(e).__name__}: {e})") from None
    root = _root_tag(transport.contents[0]) if transport.contents else None
    if root != "{http://schemas.xmlsoap.org/wsdl/}definitions":
        shown = root.split("}")[-1] if root else "none"
        raise ServiceError(f"{location}: not a WSDL 1.1 document (its root element is <{shown}>: an error page?"
                           + (" WSDL 2.0 is not supported)" if root and root.endswith("}description") else ")"))
    if _encoded(transport.contents):
        raise ServiceError(f"{location}: a binding uses SOAP encoding (use=\"encoded\"): only document/literal "
                           "and rpc/literal are supported")
    from zeep.wsdl.bindings.soap import Soap11Binding, Soap12Binding
    for svc in client.wsdl.services.values():
        for port in svc.ports.values():
            b = port.binding
            if not isinstance(b, (Soap11Binding, Soap12Binding)):
                continue
            out = Service(location, "1.2" if isinstance(b, Soap12Binding) else "1.1",
                          (port.binding_options or {}).get("address"), str(b.name), documents=list(transport.loaded))
            for name, op in b._operations.items():
                if op.input is None or op.input.body is None:
                    continue
                out.operations[name] = Operation(name, op.style or "document", op.soapaction or None,
                                                 op.input.body, getattr(op.output, "body", None))
            if out.operations:
                return out
    raise ServiceError(f"{location}: no SOAP 1.1 or 1.2 binding with an operation (an HTTP binding only?)")


# ---------------------------------------------------------------- templates
_SAMPLES = (("bool", "true"), ("int", "1"), ("long", "1"), ("short", "1"), ("byte", "1"), ("integer", "1"),
            ("decimal", "1.5"), ("double", "1.5"), ("float", "1.5"), ("datetime", "2026-01-01T00:00:00Z"),
            ("date", "2026-01-01"), ("time", "00:00:00"), ("duration", "PT1S"), ("base64", "dGVzdGJlZA=="),
            ("hexbinary", "74657374"), ("anyuri", "urn:soap-testbed"), ("qname", "tb:x"))


def _value(xsd_type) -> str:
    name = type(xsd_type).__name__.lower()
    qname = str(getattr(xsd_type, "qname", "") or "").lower()
    for key, value in _SAMPLES:
        if key in name or qname.endswith("}" + key) or key in qname:
            return value
    return "text"


def _repeated(el) -> bool:
    m = getattr(el, "max_occurs", 1)
    return m == "unbounded" or (isinstance(m, int) and m > 1)


def _build(parent, el, depth: int) -> None:
    """el (a zeep element) as a child of parent: a complex type's elements in order, a simple
    type's sample value, a repeated element marked tb:repeat."""
    from lxml import etree
    from zeep.xsd.types.complex import ComplexType
    node = etree.SubElement(parent, el.qname.text)
    if _repeated(el):
        node.set(REPEAT, "${n}")
    t = el.type
    if not isinstance(t, ComplexType):
        node.text = _value(t)
        return
    for _, attr in t.attributes:
        if getattr(attr, "required", False) and getattr(attr, "qname", None) is not None:
            node.set(attr.qname.text, _value(attr.type))
    if depth >= MAX_DEPTH:
        return
    children = [c for _, c in t.elements if getattr(c, "qname", None) is not None]
    for child in children:
        _build(node, child, depth + 1)
    if not children and getattr(t, "_extension", None) is not None and not isinstance(t._extension, ComplexType):
        node.text = _value(t._extension)           # simple content with attributes


def sample(op: Operation) -> str:
    """The operation's request template (module doc)."""
    from lxml import etree
    body = op.body
    holder = etree.Element("holder", nsmap={"tb": TEMPLATE_NS})
    _build(holder, body, 0)
    (node,) = list(holder)
    node.attrib.pop(REPEAT, None)
    etree.cleanup_namespaces(holder, top_nsmap={"tb": TEMPLATE_NS}, keep_ns_prefixes=["tb"])
    text = etree.tostring(node, pretty_print=True, encoding="unicode")
    return f"<!-- {op.name} ({op.style}/literal): edit the values; tb:repeat=\"${{n}}\" repeats an element n times -->\n{text}"


def expand(template: str, params: dict[str, str | int]) -> bytes:
    """The template with every tb:repeat element repeated and every ${name} replaced (ServiceError
    names an unknown parameter or a count that is not a whole number 0 … 100,000)."""
    from lxml import etree

    def sub(text: str | None) -> str | None:
        if text is None:
            return None

        def one(m):
            if m.group(1) not in params:
                raise ServiceError(f"the template uses ${{{m.group(1)}}}; give it (known: {', '.join(params) or 'none'})")
            return str(params[m.group(1)])
        return PARAM.sub(one, text)
    try:
        root = etree.fromstring(template.encode(), etree.XMLParser(resolve_entities=False, no_network=True,
                                                                    load_dtd=False, remove_comments=True))
    except etree.XMLSyntaxError as e:
        raise ServiceError(f"the template is not XML: {e}") from None
    for node in list(root.iter()):
        if not isinstance(node.tag, str):
            continue
        node.text, node.tail = sub(node.text), sub(node.tail)
        for k, v in list(node.attrib.items()):
            if k != REPEAT:
                node.set(k, sub(v))
    for node in list(root.iter()):
        count = node.attrib.pop(REPEAT, None)
        if count is None:
            continue
        count = sub(count)
        if not count.isdigit() or int(count) > 100_000:
            raise ServiceError(f"tb:repeat={count!r} on {node.tag}: a whole number 0 … 100,000")
        parent = node.getparent()
        if parent is None:
            continue
        at = parent.index(node)
        for k in range(int(count) - 1):
            parent.insert(at + 1 + k, _copy(node))
        if int(count) == 0:
            parent.remove(node)
    etree.cleanup_namespaces(root)
    return etree.tostring(root)


def _copy(node):
    import copy
    return copy.deepcopy(node)


def check(op: Operation, payload: bytes) -> None:
    """The expanded template read against the operation's schema: each element one the schema has
    at that place, as many times as it allows, each simple value one its type reads; ServiceError
    names the first element that is not, by its path."""
    from lxml import etree
    try:
        root = etree.fromstring(payload, etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False))
    except etree.XMLSyntaxError as e:
        raise ServiceError(f"the request is not XML: {e}") from None
    _conform(root, op.body, f"/{etree.QName(root).localname}", op.name)


def _conform(node, el, path: str, op: str) -> None:
    from lxml import etree
    from zeep.xsd.types.complex import ComplexType
    if node.tag != el.qname.text:
        raise ServiceError(f"{op}: {path}: the schema has {el.qname.text} here, the template {node.tag}")
    t = el.type
    if not isinstance(t, ComplexType):
        try:
            t.pythonvalue((node.text or "").strip())
        except (ValueError, TypeError, ArithmeticError) as e:
            raise ServiceError(f"{op}: {path}: {node.text!r} is not a {t.name or type(t).__name__} ({e})") from None
        return
    allowed = {c.qname.text: c for _, c in t.elements if getattr(c, "qname", None) is not None}
    counts: dict[str, int] = {}
    for child in node:
        if not isinstance(child.tag, str):
            continue
        name = etree.QName(child).localname
        if child.tag not in allowed:
            raise ServiceError(f"{op}: {path}/{name}: not an element of {el.qname.localname} in the schema "
                               f"(it has {', '.join(etree.QName(k).localname for k in allowed) or 'none'})")
        counts[child.tag] = counts.get(child.tag, 0) + 1
        _conform(child, allowed[child.tag], f"{path}/{name}", op)
    for tag, c in allowed.items():
        n, least, most = counts.get(tag, 0), getattr(c, "min_occurs", 1) or 0, getattr(c, "max_occurs", 1)
        if n < least and not getattr(c, "nillable", False):
            raise ServiceError(f"{op}: {path}: {etree.QName(tag).localname} is required ({least} at least), missing")
        if most != "unbounded" and isinstance(most, int) and n > most:
            raise ServiceError(f"{op}: {path}: {etree.QName(tag).localname} {n} times, the schema allows {most}")
