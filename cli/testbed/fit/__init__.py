"""An experiment fitted to this host before (and during) its runs.

  scaling     the service wait the singleton lock holds, chosen so the lock and not the host
              is the limit (the regime)
  costs       the per-request CPU costs that choice rests on: measured, or from a folder
  profile     the classic-system profile: emulated demands that give the stack its shape
  tohost      the runner's side: measure, choose, rewrite the runs
  buildprobe  what a per-request client's build costs each tier, measured before its run
"""
