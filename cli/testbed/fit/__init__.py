"""An experiment fitted to this host before (and during) its runs.

  scaling     the service wait the singleton lock holds, chosen so the lock and not the host
              is the limit (the regime)
  costs       the per-request CPU costs that choice rests on: measured by a cost probe (a short
              /seg/5 run without the wait), or read from a finished run or an earlier folder
  profile     the classic-system profile's arithmetic: this stack's own costs in, the emulated
              demands, quotas, wait and pool that give the stack its shape out; the next_*
              settings from what the runs measured under the quotas (no I/O)
  rewrite     settings into the runs: the profile, a setting chosen again, the service wait
  probes      the profile's cost probes (its own costs) and profile probes (a configuration
              under its quotas) as runs to make, and the reading of the cost probes
  tohost      the runner's side: measure, choose, rewrite the runs; retune the profile
  buildprobe  what a per-request client's build costs each tier, measured before its run
"""
