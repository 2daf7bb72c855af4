"""SOAP services the testbed's own code did not write, for the tests of "your own service", each
with an array operation (total) and one that answers with a Fault (fail), served on loopback:

- spyne (PyPI), in a threading WSGI server in the test's process:
      .venv/bin/python tests/own_services.py [PORT]      # prints its WSDL's URL, serves until Ctrl-C
- Apache CXF (JAX-WS on its embedded Jetty), tests/services/cxf-shop, built here when first asked:
      java -jar tests/services/cxf-shop/target/cxf-shop.jar [PORT]
"""
from __future__ import annotations

import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server


class _Threading(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _Quiet(WSGIRequestHandler):
    def log_message(self, *a):
        pass


def shop_app():
    from spyne import Application, Array, ComplexModel, Double, Fault, ServiceBase, Unicode, rpc
    from spyne.protocol.soap import Soap11
    from spyne.server.wsgi import WsgiApplication

    class Item(ComplexModel):
        __namespace__ = "urn:shop"
        name = Unicode
        price = Double

    class Shop(ServiceBase):
        @rpc(Array(Item), _returns=Double)
        def total(ctx, items):
            return sum(i.price or 0 for i in (items or []))

        @rpc(Unicode, _returns=Unicode)
        def fail(ctx, why):
            raise Fault("Client", why or "asked to fail")

    app = Application([Shop], "urn:shop", in_protocol=Soap11(validator="lxml"), out_protocol=Soap11())
    return WsgiApplication(app)


def start_shop(port: int = 0):
    """(the server, its WSDL's URL): serving in a daemon thread on 127.0.0.1; server.shutdown() ends it."""
    srv = make_server("127.0.0.1", port, shop_app(), server_class=_Threading, handler_class=_Quiet)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, f"http://127.0.0.1:{srv.server_port}/?wsdl"


class Canned(ThreadingHTTPServer):
    """Not a SOAP service: serves path -> bytes to GET (counting each path's requests) and answers
    every POST with `post` (status, content type, body) — an error page where a SOAP answer should be."""

    def __init__(self, docs: dict[str, bytes | str], post: tuple[int, str, bytes] | None = None):
        self.docs = {k: v.encode() if isinstance(v, str) else v for k, v in docs.items()}
        self.hits: dict[str, int] = {}
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                outer.hits[self.path] = outer.hits.get(self.path, 0) + 1
                body = outer.docs.get(self.path)
                if body is None:
                    self.send_error(404)
                    return
                self._send(200, "application/xml", body)

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if post is None:
                    self.send_error(405)
                    return
                self._send(*post)

            def _send(self, status: int, content_type: str, body: bytes):
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *a):
                pass
        super().__init__(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}{path}"


CXF_DIR = Path(__file__).resolve().parent / "services" / "cxf-shop"
CXF_JAR = CXF_DIR / "target" / "cxf-shop.jar"


def build_cxf() -> Path:
    """The CXF service's jar, built with Maven when missing or older than its sources."""
    sources = [*CXF_DIR.joinpath("src").rglob("*.java"), CXF_DIR / "pom.xml"]
    if not CXF_JAR.exists() or max(p.stat().st_mtime for p in sources) > CXF_JAR.stat().st_mtime:
        r = subprocess.run(["mvn", "-B", "-ntp", "-q", "-f", str(CXF_DIR / "pom.xml"), "package"],
                           capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            raise RuntimeError(f"building the CXF service failed:\n{(r.stdout + r.stderr)[-3000:]}")
    return CXF_JAR


def start_cxf(port: int, log: Path):
    """(the process, its WSDL's URL): the CXF service on 127.0.0.1:port, once its WSDL answers (60 s at most)."""
    jar = build_cxf()
    out = open(log, "wb")
    proc = subprocess.Popen(["java", "-Xmx128m", "-jar", str(jar), str(port)], stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/shop?wsdl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the CXF service exited at start ({log})")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return proc, url
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise RuntimeError(f"the CXF service did not answer {url} within 60 s ({log})")


if __name__ == "__main__":
    server, url = start_shop(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    print(url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.shutdown()
