"""`./testbed run`: experiments as data (loadgen/experiments/*.toml) driven against the local
stack, one result folder per experiment (docs/results.md, docs/experiments.md).

  definition   the experiment file -> runs to do (RunSpec), --quick and --repeat applied
  reconfigure  make the stack match a run: replica counts, client mode, demand knobs
  sampler      cpu.csv: every tier process, HAProxy, each Locust process and the host
  locust       one headless Locust run (master + workers) per experiment run
  threaddumps  jstack of the Java tiers at the plateau
  results      experiment.json / run.json, written atomically as things happen
  progress     what the user sees while it runs
  runner       the whole experiment, Ctrl-C included
  efficiency   the loadgen-efficiency benchmark (Seg1User vs a bare FastHttpUser)
"""
