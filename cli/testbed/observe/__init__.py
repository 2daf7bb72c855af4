"""Watching the stack while it runs.

  monitoring  Prometheus: its configuration in both modes, its processes in local mode
  tracing     Zipkin and the tiers' tracing settings in both modes
  live        the Locust web UI's Testbed tab: one row per replica, the bottleneck hint
  exporter    the CPU exporter: every replica's CPU for Prometheus
"""
