"""The stack on a Docker Swarm, and the Swarm of Docker-in-Docker nodes `./testbed cluster`
makes on this machine.

  stack        SwarmStack: docker-compose.yml deployed as a Swarm stack, driven from a manager
  engines      its node-aware half: which engine a command goes to, CPU on a replica's node
  tasks        the stack's tasks and where they run, as the manager tells it
  cluster      `./testbed cluster up|down|status`: the nodes, their network and registry
  nodes        the nodes as the testbed reaches them (cluster.json)
  placement    where each tier runs: node labels and one constraint per service
  node_faults  a fault on a whole node: kill or pause its container
"""
