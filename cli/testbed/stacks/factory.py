"""Which Stack to act on: the factory of the stack modes, kept out of the interface's module
(stack.py) so that the interface and its implementations (local.py, docker.py, swarm.py) form
no import circle — as Locust's env.py builds the runners and runners.py never imports env.py.

    stack = open_stack(cfg, docker=None)  # the stack in place, else a local one (docker=True:
                                          # a containerized one); refuses a second stack
    stack = detect(cfg)                   # the stack that runs now, or None
"""
from __future__ import annotations

from testbed.config import StackConfig
from testbed.stacks.compose import ComposeStack
from testbed.stacks.local import LocalStack
from testbed.stack import Stack, StackError
from testbed.stacks.swarm import SwarmStack

KINDS = (LocalStack, ComposeStack, SwarmStack)     # the order detect() asks them in


def detect(cfg: StackConfig | None = None) -> Stack | None:
    """The stack that runs now: local processes, containers of this compose project, or a
    Swarm stack (SWARM_STACK, default testbed) deployed from this manager node."""
    cfg = cfg or StackConfig.load()
    for cls in KINDS:
        s = cls(cfg)
        if s.running():
            return s
    return None


def open_stack(cfg: StackConfig | None = None, docker: bool | None = None, log=print) -> Stack:
    """The stack to act on. docker=None: the one that runs, else a local one; docker=True or
    False: that mode, refused (StackError naming the fix) when the other mode runs — two
    stacks would fight over the same ports."""
    cfg = cfg or StackConfig.load()
    found = detect(cfg)
    if found is not None:
        found.log = log
        if docker is not None and (found.mode != "local") != docker:
            want = "containerized" if docker else "local"
            raise StackError(f"a {found.mode} stack is running (./testbed status); a {want} one would "
                             f"take the same ports: ./testbed down first")
        return found
    return ComposeStack(cfg, log) if docker else LocalStack(cfg, log)
