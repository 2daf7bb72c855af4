"""An HTTP reply read off the wire by the service tests (raw sockets or http.client), with
the SOAP fault fields the hostile-input tests check."""
from __future__ import annotations

import re
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
        m = re.search(r"<(?:\w+:)?faultcode[^>]*>\s*(?:\w+:)?(\w+)\s*<", self.text)
        return m.group(1) if m else None

    def faultcode(self) -> str | None:
        """The faultcode as written, prefix included (SOAP-ENV:Client), or None."""
        m = re.search(r"<faultcode>([^<]*)</faultcode>", self.text)
        return m.group(1) if m else None

    def faultstring(self) -> str | None:
        m = re.search(r"<faultstring>([^<]*)</faultstring>", self.text)
        return m.group(1) if m else None
