"""Measure, the analysis' third stage: what a run's steps measured, figure by figure, with the
rule each figure is computed by.

  maxima        maximum throughput and critical point of a run; median and spread over repeats
  segments      the segment law: segment throughputs from the path maxima, and their composition
  front_demand  the segment law's second reading: the front's demand (its CPU per request) on
                each path, in units of HAProxy's
  clones        clone scaling: speed-up and efficiency against the 1-replica baseline
  capacity      users with think time, by the interactive response-time law
  bottleneck    the bottleneck hint at the plateau, from CPU and thread dumps
  nodes         CPU per node of a cluster
  traces        where the time goes, from the traces: the decomposition beside the segment law

Before it: analysis/steps.py. After it: analysis/judge/, which holds these figures against the
published ones.
"""
