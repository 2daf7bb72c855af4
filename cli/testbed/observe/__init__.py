"""Prometheus and Zipkin beside the stack: their configuration in both modes, and in local mode
the processes that run them.

  monitoring  Prometheus: what it scrapes, its recording rules' inputs, its processes
  tracing     Zipkin and every tier's tracing settings; the span sender both HAProxy's relay and
              Locust use
The running stack read live (the Testbed tab, the CPU exporter) is testbed.live.
"""
