"""The Testbed tab while a tier is scaled under load, measured and photographed: what the
README's screenshots show, and the figures behind "the third clone appears within 10 s".

    .venv/bin/python tests/monitoring/tab_timeline.py --ui http://127.0.0.1:8089/ \
        [--scale "./testbed scale clone=3"] [--steps 8,16,32,48] [--step-seconds 40] \
        [--screenshots docs/testbed-tab] [-o results/tab-timeline-<time>]

On a running stack with its Locust UI (./testbed up, or plain docker compose up): starts a
StepLoadShape run on Seg5ViaClonesAxis from the UI's own API, reads GET /testbed/tiers every
second into timeline.jsonl, runs the scale command halfway through the run, and records when
the new replica's row appeared, was UP in HAProxy, first had requests and CPU, and the
bottleneck hint before and after (figures.json). With --screenshots, headless Chromium
photographs the tab before the scale, 10 s and 30 s after it, and at the end. Traffic goes to
the given UI and, through it, the stack's own entry point; everything is bounded in time.
"""
from __future__ import annotations

import argparse
import json
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def get_json(url: str, timeout: float = 10) -> dict:
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.load(r)


def post(url: str, form: dict) -> dict:
    with urllib.request.urlopen(urllib.request.Request(url, data=urllib.parse.urlencode(form).encode()),
                                timeout=15) as r:
        return json.loads(r.read() or b"{}")


def screenshot(url: str, path: Path, width: int = 1400, height: int = 980) -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        raise SystemExit("tab_timeline: chromium not found (apt-get install -y chromium)")
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                        "--disable-component-update", "--disable-sync", "--no-first-run",
                        f"--user-data-dir={profile}", f"--window-size={width},{height}",
                        "--virtual-time-budget=6000", f"--screenshot={path}", url],
                       capture_output=True, timeout=90, check=True)


class Timeline(threading.Thread):
    """GET /testbed/tiers every second, each answer kept with its time."""

    def __init__(self, ui: str, out: Path):
        super().__init__(daemon=True)
        self.url, self.out = ui + "testbed/tiers", out
        self.views: list[tuple[float, dict]] = []
        self.stop = threading.Event()

    def run(self):
        with open(self.out, "w") as f:
            while not self.stop.wait(1.0):
                try:
                    view = get_json(self.url)
                except (OSError, ValueError) as e:
                    view = {"error": str(e), "rows": [], "hint": {}}
                now = time.time()
                self.views.append((now, view))
                f.write(json.dumps({"t": now, **view}) + "\n")
                f.flush()


def first(views, since: float, predicate) -> float | None:
    return next((t for t, v in views if t >= since and predicate(v)), None)


def row(view: dict, name: str) -> dict:
    return next((r for r in view.get("rows", []) if f"{r['tier']}-{r['replica']}" == name), {})


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ui", required=True, help="the Locust UI, e.g. http://127.0.0.1:8089/")
    p.add_argument("--host", default=None, help="where the users aim (default: the UI's own -H)")
    p.add_argument("--scale", default="./testbed scale clone=3", help="the command typed halfway")
    p.add_argument("--replica", default="clone-3", help="the replica the command adds")
    p.add_argument("--steps", default="8,16,32,48")
    p.add_argument("--step-seconds", type=float, default=40.0)
    p.add_argument("--screenshots", default=None, help="folder (and file prefix) for PNGs, e.g. docs/testbed-tab")
    p.add_argument("-o", "--output", default=None)
    args = p.parse_args(argv)
    ui = args.ui.rstrip("/") + "/"
    out = Path(args.output or ROOT / "results" / time.strftime("tab-timeline-%Y%m%d-%H%M%S"))
    out.mkdir(parents=True, exist_ok=True)
    steps = [int(s) for s in args.steps.split(",")]
    total = len(steps) * args.step_seconds
    form = {"user_classes": "Seg5ViaClonesAxis", "shape_class": "StepLoadShape", "step_users": args.steps,
            "step_seconds": f"{args.step_seconds:g}", "user_count": 1, "spawn_rate": 1}
    if args.host:
        form["host"] = args.host
    shots = {}

    def shoot(label: str):
        if args.screenshots:
            path = Path(f"{args.screenshots}-{label}.png")
            path.parent.mkdir(parents=True, exist_ok=True)
            screenshot(ui + "?tab=testbed", path)
            shots[label] = str(path)
            print(f"tab_timeline: {label}: {path}", flush=True)

    timeline = Timeline(ui, out / "timeline.jsonl")
    timeline.start()
    t0 = time.time()
    print(f"tab_timeline: StepLoadShape {args.steps} users, {args.step_seconds:g} s each; "
          f"'{args.scale}' at {total / 2:.0f} s", flush=True)
    post(ui + "swarm", form)
    try:
        time.sleep(max(0.0, total / 2 - 3 - (time.time() - t0)))
        shoot("before")
        hint_before = timeline.views[-1][1].get("hint", {}) if timeline.views else {}
        typed = time.time()
        print(f"tab_timeline: $ {args.scale}", flush=True)
        scale = subprocess.Popen(shlex.split(args.scale), cwd=ROOT)
        time.sleep(max(0.0, typed + 10 - time.time()))
        shoot("after-10s")
        rc = scale.wait(timeout=300)
        scaled = time.time()
        time.sleep(max(0.0, typed + 30 - time.time()))
        shoot("after-30s")
        time.sleep(max(0.0, t0 + total - 3 - time.time()))
        shoot("end")
    finally:
        try:
            post(ui + "stop", {})
        except OSError:
            pass
        timeline.stop.set()
        timeline.join(timeout=5)
    views = timeline.views
    name = args.replica
    appeared = first(views, typed, lambda v: bool(row(v, name)))
    up = first(views, typed, lambda v: row(v, name).get("haproxy") == "UP")
    served = first(views, typed, lambda v: (row(v, name).get("req_s") or 0) > 0)
    cpu = first(views, typed, lambda v: (row(v, name).get("cpu") or 0) >= 1)
    after = [v for t, v in views if t >= typed + 20 and v.get("hint")]
    later = [v for t, v in views if t >= typed + 20]
    figures = {
        "scale_command": args.scale, "exit_code": rc, "typed_at": typed, "scale_returned_after_s": scaled - typed,
        "row_appeared_after_s": appeared and appeared - typed, "up_in_haproxy_after_s": up and up - typed,
        "first_requests_after_s": served and served - typed, "first_cpu_after_s": cpu and cpu - typed,
        "row_after_scale_returned_s": appeared and appeared - scaled,
        "replica_rate_after": max((row(v, name).get("req_s") or 0) for v in later) if later else None,
        "replica_cpu_after": max((row(v, name).get("cpu") or 0) for v in later) if later else None,
        "hint_before": hint_before, "hint_after": after[-1]["hint"] if after else None, "screenshots": shots,
        "steps": steps, "step_seconds": args.step_seconds}
    (out / "figures.json").write_text(json.dumps(figures, indent=1))
    print(json.dumps({k: v for k, v in figures.items() if k != "screenshots"}, indent=1))
    print(f"tab_timeline: {out}")
    return 0 if appeared else 1


if __name__ == "__main__":
    sys.exit(main())
