"""HAProxy, the one load balancer in front of every tier.

  config    services/haproxy/haproxy.cfg.in rendered for a local stack or the container
  runtime   a running HAProxy driven through its runtime API and read through its stats page
  gate      the container's readiness gate: a slot enters rotation once its replica is healthy
  spans     the span relay: HAProxy's log lines turned into Zipkin spans
  spanline  one log line checked and made a span within the byte bounds (the relay's parser)
  keeper    runs one of HAProxy's `program`s and starts it again should it die (the relay)
"""
