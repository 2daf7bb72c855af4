"""Fault injection: kill, pause or slow one replica (or a whole node), by hand or from an
experiment.

  spec      what a fault is, parsed and checked from the verb's arguments or [[faults]] tables
  injector  the Injector: runs faults against a stack in background threads, records what happened
  command   the `fault` verb
A node's own faults (kill or pause its container) are testbed.swarm.node_faults.
"""
