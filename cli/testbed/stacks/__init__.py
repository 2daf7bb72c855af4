"""The stack's implementations of testbed.stack's interface, the factory that picks one, and the
verbs that act on it.

  local          the stack as plain processes on loopback (LocalStack)
  compose        the stack as containers of a compose project (ComposeStack)
  swarm          the stack deployed on a Docker Swarm (SwarmStack), driven from a manager
  swarm_engines  SwarmStack's node-aware half: which engine a command goes to, CPU on a node
  swarm_tasks    the Swarm stack's tasks and where they run, as the manager tells it
  dockercli      the docker and docker compose commands the container stacks are built on
  cluster        `./testbed cluster up|down|status`: a Swarm of Docker-in-Docker nodes here
  locust_ui      the Locust web UI processes of a local stack (master and workers)
  ports          the ports a local stack may listen on, for a second stack beside it
  factory        which Stack to act on (local, compose or Swarm); apart, so no import circle
  verbs          the stack's verbs: up, down, status, scale, logs
"""
