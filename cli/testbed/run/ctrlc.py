"""Ctrl-C held back while something must not be cut in half (a reconfiguration, the stack's
start, the prediction): the handler notes the key and says so, the block finishes, then the
KeyboardInterrupt is raised. Off the main thread there is no handler to swap: the block runs as is."""
from __future__ import annotations

import contextlib
import signal
import threading

from testbed.run.progress import Progress


@contextlib.contextmanager
def deferred_sigint(progress: Progress, what: str):
    """Ctrl-C inside the block is held until the block ends, then raised."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pressed = []

    def handler(signum, frame):
        if not pressed:
            progress.say(f"\nCtrl-C: stopping after {what} (a few seconds) ...")
        pressed.append(signum)

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if pressed:
        raise KeyboardInterrupt
