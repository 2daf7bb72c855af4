"""A SOAP service the project did not write, read from its WSDL (cli/testbed/ownservice/wsdl.py):
a spyne service started here on loopback read, its operations' templates written, expanded and
checked against its schema; and the hostile WSDLs a user might bring, each refused with its reason,
nothing hanging, nothing fetched but what the WSDL's own location allows."""
from __future__ import annotations


import pytest

from testbed.ownservice import wsdl
from hostile_wsdls import ENTITY, importing, schema_importing, wsdl as a_wsdl
from own_services import Canned


@pytest.fixture
def served():
    made = []

    def serve(docs):
        made.append(Canned(docs))
        return made[-1]
    yield serve
    for d in made:
        d.shutdown()
        d.server_close()


@pytest.fixture(scope="module")
def shop():
    """A spyne (PyPI) service on loopback: an array operation and one that answers with a Fault."""
    pytest.importorskip("spyne")
    from own_services import start_shop
    srv, url = start_shop()
    yield url
    srv.shutdown()


def test_a_spyne_service_is_read_and_its_array_operation_sampled(shop):
    s = wsdl.read(shop)
    assert (s.soap, sorted(s.operations)) == ("1.1", ["fail", "total"])
    assert s.endpoint.startswith("http://127.0.0.1:")
    op = s.operation("total")
    template = wsdl.sample(op)
    assert 'tb:repeat="${n}"' in template and "<ns0:price>1.5</ns0:price>" in template
    three = wsdl.expand(template, {"n": 3})
    assert three.count(b"<ns0:Item>") == 3 and b"tb:" not in three
    wsdl.check(op, three)
    wsdl.check(op, wsdl.expand(template, {"n": 0}))           # an empty array is an array


@pytest.mark.parametrize("edit,said", [
    (lambda t: t.replace("ns0:price>", "ns0:prize>"), "/total/items/Item/prize: not an element of Item"),
    (lambda t: t.replace(">1.5<", ">abc<"), "/total/items/Item/price: 'abc' is not a double"),
    (lambda t: t.replace("ns0:total", "ns0:totals"), "the schema has {urn:shop}total here"),
])
def test_a_template_that_does_not_match_the_schema_is_refused_where_it_does_not(shop, edit, said):
    op = wsdl.read(shop).operation("total")
    with pytest.raises(wsdl.ServiceError, match=said.replace("{", r"\{").replace("}", r"\}")):
        wsdl.check(op, wsdl.expand(edit(wsdl.sample(op)), {"n": 2}))


def test_template_parameters_and_counts_are_checked(shop):
    t = wsdl.sample(wsdl.read(shop).operation("total"))
    with pytest.raises(wsdl.ServiceError, match=r"uses \$\{n\}"):
        wsdl.expand(t, {})
    with pytest.raises(wsdl.ServiceError, match="a whole number"):
        wsdl.expand(t, {"n": "-1"})
    with pytest.raises(wsdl.ServiceError, match="not XML"):
        wsdl.expand("<a>", {"n": 1})


def test_an_operation_that_does_not_exist_is_named_with_those_that_do(shop):
    with pytest.raises(wsdl.ServiceError, match="no operation 'nope'; it has total, fail"):
        wsdl.read(shop).operation("nope")


def test_an_unreachable_wsdl_is_said_so_at_once():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]                       # bound, never listening: refused
    with pytest.raises(wsdl.ServiceError, match="cannot be fetched"):
        wsdl.read(f"http://127.0.0.1:{port}/?wsdl")


@pytest.mark.parametrize("doc,said", [
    (a_wsdl(binding="http"), "no SOAP 1.1 or 1.2 binding"),
    (a_wsdl(use="encoded", style="rpc"), "SOAP encoding"),
    (a_wsdl(doctype=ENTITY), "DTD or entities"),
    ("<html><body><h1>502 Bad Gateway</h1></body></html>", "its root element is <html>"),
    ("Internal error <", "not XML"),
])
def test_a_wsdl_the_testbed_cannot_use_is_refused_with_its_reason(served, doc, said):
    d = served({"/s.wsdl": doc})
    with pytest.raises(wsdl.ServiceError, match=said):
        wsdl.read(d.url("/s.wsdl"))


def test_a_literal_wsdl_of_either_style_is_read(served):
    for style in ("document", "rpc"):
        d = served({"/s.wsdl": a_wsdl(style=style)})
        s = wsdl.read(d.url("/s.wsdl"))
        assert s.operation("echo").style == style and "<ns0:text>text</ns0:text>" in wsdl.sample(s.operation("echo"))


def test_an_import_from_elsewhere_is_refused_and_never_fetched(served):
    other = served({"/x.xsd": schema_importing("urn:other", "urn:none", "none.xsd")})
    d = served({"/s.wsdl": importing(other.url("/x.xsd"))})
    with pytest.raises(wsdl.ServiceError, match="outside the WSDL's own location"):
        wsdl.read(d.url("/s.wsdl"))
    assert other.hits == {}


def test_imports_in_a_loop_end(served):
    """a.xsd imports b.xsd imports a.xsd (schemas may import each other): each fetched once, read."""
    d = served({"/s.wsdl": importing("a.xsd"),
                "/a.xsd": schema_importing("urn:other", "urn:b", "b.xsd"),
                "/b.xsd": schema_importing("urn:b", "urn:other", "a.xsd")})
    assert list(wsdl.read(d.url("/s.wsdl")).operations) == ["echo"]
    assert d.hits == {"/s.wsdl": 1, "/a.xsd": 1, "/b.xsd": 1}


def test_a_document_beyond_the_size_limit_is_refused(served, monkeypatch):
    monkeypatch.setattr(wsdl, "MAX_DOCUMENT_BYTES", 64 * 1024)
    big = schema_importing("urn:other", "urn:none", "none.xsd").replace(
        "<xs:element", "<!--" + "x" * (128 * 1024) + "--><xs:element", 1)
    d = served({"/s.wsdl": importing("big.xsd"), "/big.xsd": big})
    with pytest.raises(wsdl.ServiceError, match="larger than"):
        wsdl.read(d.url("/s.wsdl"))


def test_a_wsdl_file_reads_imports_beside_it_only(tmp_path):
    (tmp_path / "svc").mkdir()
    (tmp_path / "svc" / "s.wsdl").write_text(importing("../outside.xsd"))
    (tmp_path / "outside.xsd").write_text(schema_importing("urn:other", "urn:none", "none.xsd"))
    with pytest.raises(wsdl.ServiceError, match="outside the WSDL's own location"):
        wsdl.read(str(tmp_path / "svc" / "s.wsdl"))
    (tmp_path / "svc" / "t.wsdl").write_text(a_wsdl())
    assert list(wsdl.read(str(tmp_path / "svc" / "t.wsdl")).operations) == ["echo"]


def _cli(*argv) -> int:
    import argparse
    from testbed.ownservice import command
    p = argparse.ArgumentParser()
    command.add_arguments(p)
    return command.main(p.parse_args(list(argv)))


def test_the_verb_writes_a_template_per_operation_and_checks_an_edited_one(shop, tmp_path, capsys):
    assert _cli("sample", shop, "-o", str(tmp_path / "req")) == 0
    assert sorted(p.name for p in (tmp_path / "req").iterdir()) == ["fail.xml", "total.xml"]
    total = tmp_path / "req" / "total.xml"
    total.write_text(total.read_text().replace(">1.5<", ">2.25<"))
    assert _cli("check", shop, "--operation", "total", "--payload", str(total), "--param", "n=50") == 0
    assert "matches the schema of total (n=50" in capsys.readouterr().out
    total.write_text(total.read_text().replace(">2.25<", ">cheap<"))
    assert _cli("check", shop, "--operation", "total", "--payload", str(total)) == 1
    assert "'cheap' is not a double" in capsys.readouterr().err


@pytest.mark.parametrize("argv,said", [
    (["check", "{shop}", "--payload", "{tmp}/none.xml", "--operation", "total"], "cannot be read"),
    (["check", "{shop}", "--payload", "{tmp}/t.xml"], "name the operation (--operation): total, fail"),
    (["check", "{shop}", "--payload", "{tmp}/t.xml", "--operation", "total", "--param", "n"], "write NAME=VALUE"),
    (["sample", "{tmp}/missing.wsdl"], "cannot be read"),
])
def test_bad_input_is_one_line_and_exit_2(shop, tmp_path, capsys, argv, said):
    (tmp_path / "t.xml").write_text("<a/>")
    assert _cli(*(a.format(shop=shop, tmp=tmp_path) for a in argv)) == 2
    err = capsys.readouterr().err.strip()
    assert said in err and len(err.splitlines()) == 1
