"""The stack: one interface, whatever runs it, and its implementations.

  interface   Stack, its status shape, CpuTarget, StackError: what every caller uses
  factory     which Stack to act on (local, compose or Swarm); apart, so no import circle
  local       the stack as plain processes on loopback (LocalStack)
  compose     the stack as containers of a compose project (ComposeStack)
  dockercli   the docker and docker compose commands both container stacks are built on
  config      the knobs: .env, overridden by the environment, overridden by flags (StackConfig)
  ports       the ports a local stack may listen on, for a second stack beside it
  locust_ui   the Locust web UI processes of a local stack (master and workers)
  verbs       the stack's verbs: up, down, status, scale, logs
The Swarm stack is in testbed.swarm.
"""
