"""What the compose profiles' checks share (check_monitoring.py, check_tracing.py): their options,
the profiles their compose commands name, their result folder and their start. CI runs both on
one stack with both profiles: TESTBED_CHECK_PROFILES, `--keep` on the first, `--reuse` on the
second (.ci/run)."""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_stack import ROOT, publish_ports, read_env_file  # noqa: E402


def profile_options(doc: str, argv) -> tuple[argparse.Namespace, dict[str, str], dict[str, int]]:
    """The options of a compose profile's check (check_monitoring.py, check_tracing.py), .env's
    knobs and the ports the stack publishes."""
    p = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--port-base", type=int, default=0, help="publish on 127.0.0.1:BASE.. instead of .env's ports")
    p.add_argument("--no-build", action="store_true", help="use the images as they are (CI builds them once)")
    p.add_argument("--keep", action="store_true", help="leave the stack running")
    p.add_argument("--reuse", action="store_true",
                   help="check the stack that runs (an earlier check left it with --keep, its profile on): "
                        "no build, no up; down at the end unless --keep")
    p.add_argument("-o", "--output", default=None)
    args = p.parse_args(argv)
    env = read_env_file(ROOT / ".env")
    return args, env, publish_ports(args.port_base, env)


def check_profiles(own: str) -> list[str]:
    """The compose profiles a profile check runs with: its own, and those of
    TESTBED_CHECK_PROFILES (space-separated) -- CI runs the monitoring and the tracing checks on
    one stack with both, started once: `--keep` on the first, `--reuse` on the second."""
    extra = (os.environ.get("TESTBED_CHECK_PROFILES") or "").split()
    return [x for name in [own, *(e for e in extra if e != own)] for x in ("--profile", name)]


def fresh_project(compose, args, kind: str) -> Path:
    """A profile check's result folder (-o, else results/<kind>-check-<time>), once it is sure
    that the compose project has no containers yet (the check starts and removes its own) --
    with --reuse, that it has them."""
    running = compose("ps", "-q", capture=True, timeout=60).stdout.strip()
    if running and not args.reuse:
        raise SystemExit(f"check_{kind}: the compose project already has containers (docker compose down)")
    if args.reuse and not running:
        raise SystemExit(f"check_{kind} --reuse: no container of the project runs (start it, or leave out --reuse)")
    return Path(args.output or ROOT / "results" / time.strftime(f"{kind}-check-%Y%m%d-%H%M%S"))


def build_and_up(compose, figures: dict, no_build: bool, wait_timeout: int, reuse: bool = False) -> None:
    """A profile check's start: its images built (unless --no-build), then up --wait, both timed;
    reuse: the stack runs already (nothing built or started)."""
    if reuse:
        figures["reused_stack"] = True
        return
    if not no_build:
        t0 = time.monotonic()
        compose("build")
        figures["build_seconds"] = round(time.monotonic() - t0, 1)
    t0 = time.monotonic()
    compose("up", "--detach", "--wait", "--wait-timeout", str(wait_timeout))
    figures["up_wait_seconds"] = round(time.monotonic() - t0, 1)
