"""A stand-in HTTP server on loopback for tests that need something to answer a testbed
component (a clone's /probe/build, a front's /served, HAProxy's /seg/5): answer(method, path)
-> (status, body bytes), on an ephemeral port, serving from a daemon thread until shutdown();
keep(body bytes), when given, receives each request's body first."""
from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable


def serve(answer: Callable[[str, str], tuple[int, bytes]],
          keep: Callable[[bytes], None] | None = None) -> ThreadingHTTPServer:
    """The server, already serving; the caller shuts it down (server.shutdown())."""
    class Handler(BaseHTTPRequestHandler):
        def _reply(self):
            if keep is not None:
                keep(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            status, body = answer(self.command, self.path)
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = _reply

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
