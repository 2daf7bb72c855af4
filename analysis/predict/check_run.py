"""An experiment file that measures the configuration `./testbed predict --target` named, so
that the answer is checked by running it: the baseline again (the reference, measured beside
it on the same machine state) and the named configuration, at user counts around its
predicted critical users N*.

    ./testbed predict results/classic-<stamp> --target 200/s --experiment target.toml
    ./testbed run target.toml
"""
from __future__ import annotations

import json

from analysis.predict.fit import Config

BASELINE_WARM_MAX_S = 300   # clones.toml's baseline: primed until warm, at most this long (docs/warm.md)

TEMPLATE = """# Written by ./testbed predict --target {target:g}/s from {folder} (analysis/predict/check_run.py):
# the model named {text} as the smallest configuration reaching it ({x:.1f}/s predicted at
# saturation, critical users N* = {n_star}). The report's "Predicted before measured" section
# says whether it does (settings.target_throughput, target_run).
name = "target-check"
kind = "clones"
description = "Checks ./testbed predict --target {target:g}/s: {text}"

[load]
users = {users}
step_seconds = 15
warmup_seconds = 4
think_time = 0.0
workers = "auto"
warm = "steady"          # after each restart or scaling: primed until measurably warm (docs/warm.md)
hold_seconds = 0

[defaults]
path = 5
backend = {backend}
op = {op}
n = {n}
tiers = {{ front = 1, clone = 1, {backend_key} = 1 }}
client_mode = "singleton"
{demands}
[settings]
tolerance = 0.05
target_throughput = {target:g}   # the report's "Predicted before measured" says whether run
target_run = "target-{slug}"     # target-{slug} measured at or above it
target_predicted = {x:.1f}       # what ./testbed predict answered, from target_from
target_from = {folder_json}

# The baseline is primed as clones.toml primes its own: the stack starts fresh, and a baseline
# measured while its JVMs still compile the request path reads 2-4 times the warm CPU a request,
# so the model the report fits to it (its "Predicted before measured") would read low.
[[runs]]
id = "singleton-c1-{short}1"
label = "the baseline (singleton, 1 clone, 1 {backend_key})"
load = {{ warm_max_seconds = {baseline_warm_max} }}

[[runs]]
id = "target-{slug}"
label = "{text}"
tiers = {{ clone = {clones}, {backend_key} = {service} }}
client_mode = "{mode}"
{pool}"""


def experiment_toml(cfg: Config, answer: dict, baseline_meta: dict, folder: str) -> str:
    n_star = int(answer["critical_users"] or 4)
    users = sorted({max(1, n_star // 2), n_star, 2 * n_star, 4 * n_star})
    backend = str(baseline_meta.get("backend") or "axis")
    demands = demands_toml(baseline_meta)
    mode = cfg.client_mode
    return TEMPLATE.format(target=answer["target"], folder=folder, folder_json=json.dumps(str(folder)),
                           baseline_warm_max=BASELINE_WARM_MAX_S, text=cfg.text(), x=answer["max_throughput"],
                           n_star=n_star, users=users, backend=json.dumps(backend),
                           op=json.dumps(str(baseline_meta.get("op") or "ping")), n=int(baseline_meta.get("n") or 0),
                           backend_key=backend, demands=demands, short=backend[0], clones=cfg.clones,
                           service=cfg.service, mode=mode,
                           slug=f"{mode}{cfg.pool_size or ''}-c{cfg.clones}",
                           pool=f"pool_size = {cfg.pool_size}\n" if mode == "pool" else "")


def demands_toml(meta: dict) -> str:
    """A run's demands (run.json "demands") as [defaults] lines of an experiment file."""
    out = ""
    for point, d in sorted((meta.get("demands") or {}).items()):
        inner = ", ".join(f"{k} = {json.dumps(v)}" for k, v in sorted(d.items()))
        out += f"demands.{point} = {{ {inner} }}\n"
    return out
