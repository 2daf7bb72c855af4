"""A multi-node Swarm's nodes, as the testbed reaches them.

  nodes        the nodes of a cluster made by `./testbed cluster up` (its cluster.json)
  placement    where each tier may run: node labels, one constraint per service
  node_faults  a fault on a whole node: kill or pause its container
The stack deployed on a Swarm, and the `cluster` verb that makes the nodes, are in testbed.stacks.
"""
