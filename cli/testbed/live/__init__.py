"""The running stack read live, for people and for Prometheus.

  view      what the Locust web UI's Testbed tab shows: one row per replica, the bottleneck hint
  exporter  the CPU exporter: every replica's CPU as Prometheus counters
"""
