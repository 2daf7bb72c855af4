"""The SOAP testbed's command line: build, start, scale and load a multi-tier SOAP stack.

The package in layers, each importing only from those below it (tests/test_import_graph.py):

  cli, runcmd, testcmd   the verbs: the parser, `run` (experiments, studies, benchmarks), `test`
  bench/ studies/        benchmarks, and the supporting studies' runner and measurements
  run/                   the experiment runner: one Locust run after another, what each records
  fit/                   an experiment fitted to the host: the scaled wait, costs, the profile
  experiment/            an experiment file, read and checked
  faults/ live/          fault injection; the running stack read live (Testbed tab, CPU exporter)
  stacks/                the stack as processes, as compose containers, on a Swarm; its verbs
  haproxy/               HAProxy's config, runtime API, readiness gate, span relay
  cpu/ observe/ swarm/   CPU readings and quotas; Prometheus and Zipkin; a Swarm's nodes
  stack, config          the Stack interface; the knobs (.env, environment, flags)
  procs, tiers, contract, build, prereqs   processes, how each tier starts and its admin
                         token, the SOAP contract's reference, the builds, the system packages
Each subpackage's __init__ says what it holds.
"""
import os
from pathlib import Path

ROOT = Path(os.environ.get("TESTBED_ROOT") or Path(__file__).resolve().parents[2])
