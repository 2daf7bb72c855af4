"""A client that holds a connection by trickling its request (tests and benchmarks of
docs/reliability.md): only to 127.0.0.1, bounded in time."""
from __future__ import annotations

import socket
import time


def slow_connection(port: int, body: bool, results: list, hold_s: float, opened: list | None = None) -> None:
    """Trickle a request's headers (or, after complete headers, its body) a byte a second, for
    hold_s at most. Appends (the answer's status line, seconds held, whether the server closed
    the connection before hold_s) to results; and True to `opened` once the request has begun."""
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
    except OSError as e:
        results.append(("connect failed", str(e)))
        return
    s.settimeout(0.5)
    head = b"POST /gsoap HTTP/1.1\r\nHost: t\r\nContent-Type: text/xml\r\n"
    head += b"Content-Length: 5000\r\n\r\n" if body else b""
    got, t0, closed = b"", time.monotonic(), False
    try:
        s.sendall(head)
        if opened is not None:
            opened.append(True)
        while time.monotonic() - t0 < hold_s:
            try:
                s.sendall(b"<" if body else b"X")
                data = s.recv(256)
                if not data:
                    closed = True
                    break
                got += data
            except socket.timeout:
                pass
            except OSError:
                closed = True
                break
            time.sleep(0.5)
    finally:
        s.close()
    results.append((got.split(b"\r\n", 1)[0].decode(errors="replace"), round(time.monotonic() - t0, 1), closed))
