"""CPU: how much each process and container uses, and how much it may.

  clock       the one reader of CPU time: every replica as a monotonic counter, a process's
              own seconds, the host's busy and idle seconds
  cgroup      a cgroup's CPU accounting files (v1 and v2)
  containers  the stack's containers seen from inside one of them (no Docker API)
  quotas      CPU quotas of the local stack: one cgroup per replica, as compose's `cpus`
"""
