"""Keep one of HAProxy's `program`s running (docs/tracing.md): the span relay.

HAProxy's master starts a `program` and, when it exits with a failure status, stops every worker
with it (exit-on-failure): one crash of a helper would close every entry point. So the master
starts this keeper instead, which runs the program as its child and starts it again when it
exits for any reason but the master's signals -- after 0.5 s, doubling up to 30 s while it keeps
failing within a minute of its start. The master's SIGUSR1 (a reload or a soft stop) and SIGTERM
or SIGINT (a stop) are passed on to the child; the keeper then waits for it and exits 0, which
the master takes as a normal end. The child gets SIGTERM if the keeper itself dies (Linux's
parent-death signal), and TESTBED_KEEPER=<the keeper's pid> in its environment.

    python3 -m testbed.haproxy.keeper -- python3 -m testbed.haproxy.spans --socket ... --zipkin ...
"""
from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time

FIRST_WAIT_S, MOST_WAIT_S, STEADY_S = 0.5, 30.0, 60.0
PR_SET_PDEATHSIG = 1


def _libc_prctl():
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


class Keeper:
    def __init__(self, argv: list[str], say=lambda text: print(text, file=sys.stderr, flush=True)):
        self.argv, self.say = argv, say
        self.child: subprocess.Popen | None = None
        self.leaving, self.last_signal = False, signal.SIGTERM
        self._prctl = _libc_prctl()

    def _in_child(self) -> None:      # between fork and exec: only the prctl call
        if self._prctl is not None:
            self._prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)

    def signalled(self, signum: int, _frame=None) -> None:
        """The master's signal: passed on to the program, and no restart after it ends."""
        self.leaving, self.last_signal = True, signum
        if self.child is not None and self.child.poll() is None:
            try:
                self.child.send_signal(signum)
            except ProcessLookupError:
                pass

    def start(self) -> bool:
        try:
            self.child = subprocess.Popen(self.argv, preexec_fn=self._in_child,
                                          env={**os.environ, "TESTBED_KEEPER": str(os.getpid())})
        except OSError as e:
            self.say(f"keeper: cannot start {self.argv[0]}: {e}")
            self.child = None
            return False
        return True

    def run(self) -> int:
        wait = FIRST_WAIT_S
        while not self.leaving:
            started = time.monotonic()
            code = None
            if self.start():
                if self.leaving:                 # signalled while the child was starting
                    self.signalled(self.last_signal)
                code = self.child.wait()
            if self.leaving:
                break
            if time.monotonic() - started >= STEADY_S:
                wait = FIRST_WAIT_S
            self.say(f"keeper: {' '.join(self.argv[:3])} exited ({code}); starting it again in {wait:g} s")
            deadline = time.monotonic() + wait
            while not self.leaving and time.monotonic() < deadline:
                time.sleep(min(0.1, deadline - time.monotonic()))
            wait = min(MOST_WAIT_S, wait * 2)
        return 0


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        print("usage: python3 -m testbed.haproxy.keeper -- COMMAND [ARG ...]", file=sys.stderr)
        return 2
    keeper = Keeper(args)
    for sig in (signal.SIGUSR1, signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, keeper.signalled)
    try:
        keeper.run()
        if keeper.child is not None:
            keeper.child.wait()
    except Exception as e:      # a keeper that fails must not fail HAProxy with it (exit-on-failure)
        print(f"keeper: {type(e).__name__}: {e}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
