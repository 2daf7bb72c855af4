"""SOAP services none of the project's code wrote, for the tests of "your own service": a spyne
(PyPI) service with an array operation and one that answers with a Fault, served on loopback by a
threading WSGI server. Run by hand too:

    .venv/bin/python tests/own_services.py [PORT]      # prints its WSDL's URL, serves until Ctrl-C
"""
from __future__ import annotations

import sys
import threading
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


if __name__ == "__main__":
    server, url = start_shop(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    print(url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.shutdown()
