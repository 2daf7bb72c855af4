"""What an experiment run records beside Locust's own files, each into the run's folder.

  sampler      cpu.csv: the CPU of every process that takes part, once a second
  speedprobe   speed.csv: how fast the host's CPU runs, beside the CPU samples
  clienttime   client_time.csv and clone_gc.csv: the client tier's own timers and collector
  threaddumps  the Java tiers' thread dumps at the plateau
  traces       the run's traces, copied out of Zipkin
  warmth       warm.csv: a cold configuration primed until it is measurably in steady state
"""
