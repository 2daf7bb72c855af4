"""Benchmarks: commands that measure and write their figures to a results folder, and what they share.

  services             `./testbed bench`: each service's throughput against the HTTP bound
  efficiency           `./testbed run loadgen-efficiency`: what the testbed's Locust user costs
  monitoring_overhead  `./testbed run monitoring-overhead`: what watching the stack costs it
  tracing_overhead     `./testbed run tracing-overhead`: what tracing costs it
  wrk                  driving wrk: one run, its output read, a target warmed up first
  overhead             the two overhead benchmarks' harness: the alternating order, ratios to a
                       reference within a group, the figure of a set of them, overhead.json and .md
"""
