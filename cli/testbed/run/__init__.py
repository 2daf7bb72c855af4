"""`./testbed run`: experiments as data (loadgen/experiments/*.toml) driven against the stack,
one result folder per experiment (docs/results.md, docs/experiments.md).

  command      the `run` verb: its arguments and what it starts
  definition   the experiment file -> runs to do (RunSpec), --quick and --repeat applied
  plan         the step plan of one run and the checks every value of a file goes through
  runkeys      the values of a run's keys that set the stack (replicas, quotas, demands, knobs)
  reconfigure  make the stack match a run: replica counts, client mode, demand knobs
  locustrun    one headless Locust run (master + workers) per experiment run
  record/      what a run records beside Locust: CPU, host speed, client timers, dumps, traces
  results      experiment.json / run.json, written atomically as things happen
  progress     what the user sees while it runs; headline: the lines printed at its end
  ledger       where the experiment's wall time went: its phases timed, experiment.json "time"
  eta          the time left, re-estimated from what the runs measured as their phases end
  predicting   the model's prediction, written after the baseline and before the next run
  stackuse     the stack around an experiment: started or reused before it, put back after it
  onerun       one run: the stack reconfigured, Locust driven, and all it records beside it
  ctrlc        Ctrl-C held until a block that must not be cut in half (a reconfiguration) ends
  runner       the whole experiment: its runs, fitted to the host, the prediction, the report, Ctrl-C
Fitting an experiment to the host is testbed.fit; the studies' runner is testbed.studies.runner.
"""
