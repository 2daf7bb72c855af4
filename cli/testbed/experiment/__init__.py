"""An experiment file (loadgen/experiments/<name>.toml), read and checked where it enters.

  plan        the step plan of one run ([load]) and the checks every value goes through
  scale       the [scale] table and the "auto" wait the runner scales to the host
  runkeys     a run's keys that set the stack: replicas, CPU quotas, demands, other knobs
  definition  the whole file -> the runs to do (RunSpec), --quick and --repeat applied
Fitting it to the host is testbed.fit; running it is testbed.run.
"""
