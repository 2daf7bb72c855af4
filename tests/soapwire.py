"""Raw HTTP for the service tests: a reply read off the wire (raw sockets or http.client)
with the SOAP fault fields the hostile-input tests check, a reader of responses on one
connection, and an exchange that streams a request body of any size while it reads."""
from __future__ import annotations

import re
import socket
import threading
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass
class Reply:
    status: int
    headers: dict[str, str]      # names in lower case
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")

    @property
    def fault_code(self) -> str | None:
        """The faultcode's local name (Client, Server, ...), or None if not a SOAP fault."""
        m = re.search(r"<(?:[\w.-]+:)?faultcode[^>]*>\s*(?:[\w.-]+:)?(\w+)\s*<", self.text)
        return m.group(1) if m else None

    def faultcode(self) -> str | None:
        """The faultcode as written, prefix included (SOAP-ENV:Client), or None."""
        m = re.search(r"<faultcode>([^<]*)</faultcode>", self.text)
        return m.group(1) if m else None

    def faultstring(self) -> str | None:
        m = re.search(r"<faultstring>([^<]*)</faultstring>", self.text)
        return m.group(1) if m else None


class Reader:
    """Reads HTTP responses off one connection, keeping bytes that belong to the next one.
    Bodies framed by Content-Length, chunked, or (neither) by the server closing; interim
    1xx responses are skipped."""

    def __init__(self, sock: socket.socket):
        self.sock, self.buf = sock, b""

    def _more(self, eof_ok: bool = False) -> bool:
        chunk = self.sock.recv(65536)
        if not chunk:
            if eof_ok:
                return False
            raise ConnectionError(f"connection closed before a response; got {self.buf[:200]!r}")
        self.buf += chunk
        return True

    def _line(self) -> bytes:
        while b"\r\n" not in self.buf:
            self._more()
        line, _, self.buf = self.buf.partition(b"\r\n")
        return line

    def _take(self, n: int) -> bytes:
        while len(self.buf) < n:
            self._more()
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def response(self) -> Reply:
        while True:
            while b"\r\n\r\n" not in self.buf:
                self._more()
            head, _, self.buf = self.buf.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            status = int(lines[0].split()[1])
            if not 100 <= status < 200:
                break
        headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
        if "chunked" in headers.get("transfer-encoding", "").lower():
            body = b""
            while (size := int(self._line().split(b";")[0], 16)) > 0:
                body += self._take(size)
                self._take(2)
            while self._line():   # trailers, then the empty line
                pass
        elif "content-length" in headers:
            body = self._take(int(headers["content-length"]))
        else:
            while self._more(eof_ok=True):
                pass
            body, self.buf = self.buf, b""
        return Reply(status, headers, body)


def stream_exchange(host: str, port: int, head: bytes, body: Iterable[bytes] = (),
                    timeout: float = 60.0) -> Reply:
    """Sends head, then body piece by piece, on a new connection while reading the answer:
    a server that answers before the body ends (413 from the Content-Length, a fault after
    the first bytes) is read instead of racing it, and sending stops once the answer is
    in. A body of any size is never held in memory. Raises ConnectionError (or a timeout)
    when no answer comes."""
    sock = socket.create_connection((host, port), timeout=timeout)
    answered = threading.Event()

    def pump() -> None:
        try:
            sock.sendall(head)
            for piece in body:
                if answered.is_set():
                    return
                sock.sendall(piece)
        except OSError:
            pass                      # the server stopped reading: its answer says why

    sender = threading.Thread(target=pump, name="stream-exchange-sender", daemon=True)
    sender.start()
    try:
        return Reader(sock).response()
    finally:
        answered.set()
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        sock.close()
        sender.join(timeout)
