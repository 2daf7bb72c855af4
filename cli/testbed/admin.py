"""The stack's admin token: what entitles a request to a tier's admin endpoints (the clone's
`POST /probe/build`: java-common AdminGate). `up` makes a new one and keeps it in the stack's
state folder, readable by its owner only (mode 0600); the tiers get it in their environment
(TESTBED_ADMIN_TOKEN: local replicas from LocalStack, containers from compose's or Swarm's
environment), and the runner sends it in the HEADER of each admin request (fit/buildprobe.py).
A tier started without it refuses every admin request. By hand (docs/tiers.md):

    curl -X POST -H "X-Testbed-Admin-Token: $(cat .testbed/admin-token)" \\
         "http://127.0.0.1:19400/probe/build?n=10"
"""
from __future__ import annotations

import os
import secrets
from pathlib import Path

ENV = "TESTBED_ADMIN_TOKEN"          # java-common AdminGate.ENV
HEADER = "X-Testbed-Admin-Token"     # AdminGate.HEADER
FILE = "admin-token"
TIERS = ("clone",)                   # the tiers with admin endpoints, the only ones given the token


def path(state_dir: Path) -> Path:
    return Path(state_dir) / FILE


def create(state_dir: Path) -> str:
    """A new token (replacing any older one), written with mode 0600 before it holds anything."""
    token = secrets.token_urlsafe(32)
    target = path(state_dir)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{FILE}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(token + "\n")
    os.replace(tmp, target)
    return token


def read(state_dir: Path) -> str | None:
    """The stack's token, or None when it has none (made before tokens, or never up)."""
    try:
        return path(state_dir).read_text().strip() or None
    except FileNotFoundError:
        return None


def env(state_dir: Path) -> dict[str, str]:
    """What a tier's environment gets: {ENV: token}, or {} without one."""
    token = read(state_dir)
    return {ENV: token} if token else {}


def headers(state_dir: Path) -> dict[str, str]:
    """What an admin request sends: {HEADER: token}, or {} without one (the tier then refuses)."""
    token = read(state_dir)
    return {HEADER: token} if token else {}
