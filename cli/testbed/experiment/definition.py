"""An experiment file (loadgen/experiments/<name>.toml) and the runs it asks for.

The file's tables (docs/experiments.md has the long version):

  name, kind, description   kind: segments | clones | calibration | classic (which analysis
                            applies; classic: segments and clones runs in one experiment)
  [load]                    the step plan of every run: users, step_seconds, warmup_seconds,
                            think_time, arrival_rate, max_outstanding, workers, prime_seconds,
                            hold_seconds; adaptive steps: target_ci, min_step_seconds;
                            the plateau stop: plateau_tolerance, plateau_steps
  [quick]                   --quick: load keys that replace [load]'s, and `runs` (ids kept)
  [defaults]                run keys every run starts from
  [parts.<part>]            classic only: run keys of every run of that part (over [defaults])
  [settings]                analysis thresholds (docs/results.md), copied to experiment.json
  [scale], profile          experiments scaled to the host (fit/scaling.py: demands.SERVICE =
                            {wait_us = "auto"} is chosen by the runner) and the classic-system
                            profile (fit/profile.py)
  [[runs]]                  one entry per run: id, label, path (or paths = [..], one run per
                            path, ids <id>-path<k>), backend, op, n, tiers, client_mode,
                            pool_size, regime, demands, knobs, load = {..}, quick = {..};
                            classic: part = "segments" | "clones" (the run's kind, so the
                            analysis of that part applies to it); on a multi-node Swarm:
                            placement = {front = "node-2", clone = ["node-3", "node-4"]} and
                            spread = "tier-per-node" (cli/testbed/swarm/placement.py; a run without
                            either, in a file where another run has one, runs its tiers anywhere)

Precedence of load keys: [load] < run.load, and with --quick: [load] < run.load < [quick] <
run.quick ([defaults] and [parts.<part>] load/quick tables sit before the run's).
Unknown keys are errors (a typo must not silently change an experiment).
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from testbed import ROOT
from testbed.faults import spec as faults
from testbed.swarm import placement
from testbed.experiment.plan import LOAD_KEYS, DefinitionError, LoadPlan, load_plan, unknown, whole
from testbed.experiment.runkeys import (DEMAND_KEYS, DEMAND_POINTS, KNOB_DEFAULTS, MAX_POOL_SIZE,  # noqa: F401
                                 MAX_REPLICAS, OPERATIONS, TIER_NAMES, demands_text)
from testbed.experiment.runkeys import demands as _demands
from testbed.experiment.runkeys import knobs as _knobs
from testbed.experiment.runkeys import tiers as _tiers
from testbed.experiment.runkeys import tiers_cpus as _tiers_cpus
from testbed.experiment import ownrun
from testbed.experiment.scale import ScaleSettings

EXPERIMENTS_DIR = ROOT / "loadgen" / "experiments"
KINDS = ("segments", "clones", "calibration", "classic")
PARTS = ("segments", "clones")      # the parts of a classic experiment (a run's kind)
BACKENDS = ("axis", "gsoap")
CLIENT_MODES = ("singleton", "request", "pool")
REGIMES = ("serial", "parallel")
RUN_ID = re.compile(r"^[A-Za-z0-9_.-]+$")


RUN_KEYS = ("id", "label", "path", "paths", "backend", "op", "n", "tiers", "tiers_cpus", "client_mode",
            "pool_size", "regime", "demands", "knobs", "load", "quick", "part", "placement", "spread")
TOP_KEYS = ("name", "kind", "description", "load", "quick", "defaults", "parts", "settings", "runs", "faults",
            "scale", "profile", "findings", "service")
FINDING_GROUPS = ("segments", "clones", "calibration", "stall")   # analysis/judge/registry.py: FINDINGS
PROFILES = ("stack", "classic-system")   # the stack's own costs | the classic system's shape
MERGED_BY_KEY = ("tiers", "tiers_cpus", "load", "quick", "placement")   # [parts.<part>] merges these over [defaults]


@dataclass(frozen=True)
class RunSpec:
    id: str                       # unique in the experiment, names runs/<id>/
    label: str
    kind: str
    repeat: int
    path: int
    backend: str
    op: str
    n: int
    tiers: dict[str, int]
    client_mode: str
    pool_size: int | None
    regime: str | None
    demands: dict[str, dict]
    knobs: dict[str, str]
    load: LoadPlan
    entry: str = ""               # the id without the repeat suffix (what [quick] runs names)
    auto_wait: bool = False       # demands.SERVICE.wait_us = "auto": the runner chooses it
    cold: bool = False            # primed by its rule even on warm JVMs: what they run changes (a probe)

    @property
    def user_class(self) -> str:
        """The class of loadgen/locustfile.py that requests this run's path (and backend)."""
        if self.path == 5:
            return f"Seg5ViaClones{self.backend.capitalize()}"
        return {1: "Seg1StaticPage", 2: "Seg2Jsp", 3: "Seg3AccessBean", 4: "Seg4SessionBean"}[self.path]

    def config(self) -> dict:
        """The run.json keys that say what was run (equal for repeats, docs/results.md)."""
        out: dict = {"kind": self.kind, "path": self.path, "backend": self.backend, "op": self.op,
                     "n": self.n, "tiers": dict(self.tiers), "client_mode": self.client_mode,
                     "pool_size": self.pool_size if self.client_mode == "pool" else None}
        if self.kind == "calibration":
            out["regime"] = self.regime
            out["demands"] = self.demands
        elif self.demands:
            out["demands"] = self.demands
        if self.knobs:
            out["knobs"] = dict(self.knobs)
        return out

    def stack_knobs(self) -> dict[str, str]:
        """Knobs the stack must have for this run (on top of .env and the environment)."""
        knobs = dict(self.knobs)
        knobs["CLIENT_MODE"] = self.client_mode
        if self.client_mode == "pool" and self.pool_size is not None:
            knobs["CLIENT_POOL_SIZE"] = str(self.pool_size)
        for point in DEMAND_POINTS:
            d = self.demands.get(point, {})
            knobs[f"DEMAND_{point}_CPU_US"] = str(int(d.get("cpu_us", 0)))
            knobs[f"DEMAND_{point}_WAIT_US"] = str(int(d.get("wait_us", 0)))
            knobs[f"DEMAND_{point}_LOCKED"] = "1" if d.get("locked") else "0"
        return knobs


@dataclass
class Experiment:
    name: str
    kind: str
    description: str
    source: Path
    text: str                      # the file, verbatim
    settings: dict
    runs: list[RunSpec]
    quick: bool = False
    repeat: int = 1
    raw: dict = field(default_factory=dict)
    faults: list = field(default_factory=list)    # faults.Fault, [[faults]]
    scale: ScaleSettings = field(default_factory=ScaleSettings)
    scaling: bool = True          # False: --no-scale ("auto" waits run scale.unscaled_wait_us)
    profile: str = "stack"
    service: dict = field(default_factory=dict)   # [service], checked in shape: wsdl, operation, payload, n, params

    def definition(self) -> dict:
        """experiment.json "definition": the file as run, and the runs it expanded to."""
        try:
            shown = str(self.source.relative_to(ROOT))
        except ValueError:
            shown = str(self.source)
        return {"file": shown, "quick": self.quick, "repeat": self.repeat, "toml": self.text,
                "scale": {**asdict(self.scale), "enabled": self.scaling,
                          "auto_runs": [r.id for r in self.runs if r.auto_wait]}, "profile": self.profile,
                "runs": [{**r.config(), "id": r.id, "label": r.label, "repeat": r.repeat,
                          "user_class": r.user_class, "load": asdict(r.load)} for r in self.runs]}


def find(name_or_path: str) -> Path:
    """`segments` -> loadgen/experiments/segments.toml; a path to a .toml file as given."""
    p = Path(name_or_path)
    if p.suffix == ".toml" or "/" in name_or_path:
        if not p.is_file():
            raise DefinitionError(f"{name_or_path}: no such experiment file")
        return p.resolve()
    candidate = EXPERIMENTS_DIR / f"{name_or_path}.toml"
    if not candidate.is_file():
        known = ", ".join(sorted(available())) or "none"
        raise DefinitionError(f"no experiment named {name_or_path!r} (have: {known}; or give a path "
                              "to a .toml file, e.g. a copy of loadgen/experiments/segments.toml)")
    return candidate


def available() -> list[str]:
    return [p.stem for p in EXPERIMENTS_DIR.glob("*.toml")]


def read_toml(path: Path) -> tuple[dict, str]:
    """(the parsed table, the text) of an experiment file; DefinitionError if it is not TOML."""
    text = path.read_text(encoding="utf-8")
    try:
        return tomllib.loads(text), text
    except tomllib.TOMLDecodeError as e:
        raise DefinitionError(f"{path}: not valid TOML: {e}") from None


def load(name_or_path: str, quick: bool = False, repeat: int = 1, scaling: bool = True,
         profile: str | None = None) -> Experiment:
    path = find(name_or_path)
    raw, text = read_toml(path)
    return parse(raw, path, text, quick=quick, repeat=repeat, scaling=scaling, profile=profile)


def parse(raw: dict, path: Path, text: str = "", quick: bool = False, repeat: int = 1,
          scaling: bool = True, profile: str | None = None) -> Experiment:
    """profile: --profile (None: the file's `profile`, else "stack"); scaling False: --no-scale."""
    where = str(path)
    unknown(raw, TOP_KEYS, where)
    scale = ScaleSettings.parse(raw.get("scale", {}), where)
    if profile is None:
        profile = _choice(raw.get("profile", "stack"), "profile", where, PROFILES)
    elif profile not in PROFILES:
        raise DefinitionError(f"--profile must be one of {', '.join(PROFILES)} (got {profile!r})")
    name = raw.get("name")
    if not isinstance(name, str) or not RUN_ID.match(name):
        raise DefinitionError(f"{where}: name = \"...\" is required (letters, digits, _ . -); "
                              "it prefixes the result folder")
    kind = raw.get("kind")
    if kind not in KINDS:
        raise DefinitionError(f"{where}: kind must be one of {', '.join(KINDS)} (got {kind!r})")
    if not isinstance(repeat, int) or repeat < 1:
        raise DefinitionError(f"--repeat must be >= 1 (got {repeat})")
    groups = raw.get("findings", [])
    if not isinstance(groups, list) or any(g not in FINDING_GROUPS for g in groups):
        raise DefinitionError(f"{where}: findings = [...] lists which findings the report judges, of "
                              f"{', '.join(FINDING_GROUPS)} (got {groups!r}); leave it out for the kind's own")
    base_load = _table(raw, "load", where)
    unknown(base_load, LOAD_KEYS, f"{where} [load]")
    quick_table = _table(raw, "quick", where)
    unknown(quick_table, LOAD_KEYS + ("runs",), f"{where} [quick]")
    defaults = _table(raw, "defaults", where)
    unknown(defaults, tuple(k for k in RUN_KEYS if k not in ("id", "label", "paths", "part")),
             f"{where} [defaults]")
    parts = _parts(raw, kind, where)
    settings = _table(raw, "settings", where)
    _part_settings(settings, kind, where)
    entries = raw.get("runs")
    if not isinstance(entries, list) or not entries:
        raise DefinitionError(f"{where}: at least one [[runs]] entry is needed")

    specs: list[RunSpec] = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise DefinitionError(f"{where}: [[runs]] entry {i + 1} must be a table")
        unknown(entry, RUN_KEYS, f"{where} [[runs]] entry {i + 1}")
        run_where = f"{where} [[runs]] {entry.get('id') or i + 1}"
        run_kind, run_defaults = kind, defaults
        if kind == "classic":
            run_kind = _choice(entry.get("part"), "part", run_where, PARTS)
            run_defaults = _over(defaults, parts.get(run_kind, {}))
        elif "part" in entry:
            raise DefinitionError(f"{run_where}: part is for kind = \"classic\" experiments only "
                                  "(it says which analysis a run belongs to)")
        specs.extend(_expand(run_kind, run_defaults, entry, base_load, quick_table if quick else None,
                             run_where, scale.unscaled_wait_us))
    ids = [s.entry for s in specs]
    dup = sorted({x for x in ids if ids.count(x) > 1})
    if dup:
        raise DefinitionError(f"{where}: run ids must be unique, repeated: {', '.join(dup)}")
    if quick and "runs" in quick_table:
        keep = quick_table["runs"]
        if not isinstance(keep, list) or not all(isinstance(x, str) for x in keep):
            raise DefinitionError(f"{where} [quick] runs: expected a list of run ids")
        missing = [x for x in keep if x not in ids]
        if missing:
            raise DefinitionError(f"{where} [quick] runs: no run with id {', '.join(missing)} "
                                  f"(ids: {', '.join(ids)})")
        specs = [s for s in specs if s.entry in keep]
    if any(k in sp.knobs for sp in specs for k in placement.KNOBS):    # said, not inherited
        specs = [sp if placement.KNOBS[0] in sp.knobs else replace(sp, knobs={**sp.knobs, **placement.DEFAULTS})
                 for sp in specs]
    _check_knob_defaults(specs, where)
    runs = [replace(s, id=f"{s.entry}-r{k}", repeat=k) for k in range(repeat) for s in specs]
    settings = dict(settings)
    settings.setdefault("think_time_s", specs[0].load.think_time if specs else 0.0)
    # shown in the report's settings table (docs/results.md: other keys are kept and shown)
    settings.setdefault("description", str(raw.get("description", "")).strip())
    settings.setdefault("demand knobs", demands_text(runs))
    service = ownrun.service_table(raw.get("service"), where)
    if profile != "stack" and kind != "classic":
        raise DefinitionError(f"{where}: profile {profile!r} sets the segment demands of a classic experiment "
                              f"(kind = \"classic\"; this file is {kind!r})")
    return Experiment(name=name, kind=kind, description=str(raw.get("description", "")).strip(),
                      source=path, text=text, settings=settings, runs=runs, quick=quick,
                      repeat=repeat, raw=raw, faults=faults.from_tables(raw.get("faults", []), ids, where),
                      scale=scale, scaling=scaling, profile=profile, service=service)


# ------------------------------------------------------------------------------- helpers
def _parts(raw: dict, kind: str, where: str) -> dict[str, dict]:
    """[parts.<part>] tables of a classic experiment (run keys for every run of that part)."""
    parts = _table(raw, "parts", where)
    if parts and kind != "classic":
        raise DefinitionError(f"{where}: [parts.*] tables are for kind = \"classic\" experiments only")
    unknown(parts, PARTS, f"{where} [parts]")
    for name, table in parts.items():
        if not isinstance(table, dict):
            raise DefinitionError(f"{where}: parts.{name} must be a table ([parts.{name}])")
        unknown(table, tuple(k for k in RUN_KEYS if k not in ("id", "label", "paths", "part")),
                 f"{where} [parts.{name}]")
    return parts


def _part_settings(settings: dict, kind: str, where: str) -> None:
    """classic: [settings.segments] / [settings.clones] override [settings] for that part."""
    for name in PARTS:
        if name in settings and (kind != "classic" or not isinstance(settings[name], dict)):
            raise DefinitionError(f"{where}: settings.{name} is a table of a classic experiment's "
                                  f"{name} runs ([settings.{name}] with kind = \"classic\")")


def _over(defaults: dict, part: dict) -> dict:
    """[defaults] with a part's table over it; tiers, tiers_cpus, load and quick key by key."""
    out = {**defaults, **part}
    for k in MERGED_BY_KEY:
        if isinstance(defaults.get(k), dict) and isinstance(part.get(k), dict):
            out[k] = {**defaults[k], **part[k]}
    return out


def _table(raw: dict, key: str, where: str) -> dict:
    value = raw.get(key, {})
    if not isinstance(value, dict):
        raise DefinitionError(f"{where}: {key} must be a table ([{key}] or {key} = {{...}})")
    return value


def _choice(value, key: str, where: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise DefinitionError(f"{where}: {key} must be one of {', '.join(choices)} (got {value!r})")
    return value


def _placement(defaults: dict, entry: dict, where: str) -> dict[str, str]:
    """placement and spread as the knobs PLACE_<TIER>, SPREAD (cli/testbed/swarm/placement.py)."""
    try:
        return placement.from_tables(defaults, entry, where)
    except placement.PlacementError as e:
        raise DefinitionError(str(e)) from None


def _expand(kind: str, defaults: dict, entry: dict, base_load: dict, quick: dict | None,
            where: str, auto_wait_us: int = 0) -> list[RunSpec]:
    merged = {**defaults, **entry}
    layers = [(base_load, f"{where} ([load])"), (defaults.get("load", {}), f"{where} ([defaults] load)"),
              (entry.get("load", {}), f"{where} load")]
    if quick is not None:
        layers += [({k: v for k, v in quick.items() if k != "runs"}, f"{where} ([quick])"),
                   (defaults.get("quick", {}), f"{where} ([defaults] quick)"),
                   (entry.get("quick", {}), f"{where} quick")]
    for layer, w in layers:
        if not isinstance(layer, dict):
            raise DefinitionError(f"{w}: must be a table of load keys ({', '.join(LOAD_KEYS)})")
    plan = load_plan(layers, where)
    if "path" in entry and "paths" in entry:
        raise DefinitionError(f"{where}: give path or paths, not both")
    if "paths" in entry:
        paths = entry["paths"]
        if not isinstance(paths, list) or not paths:
            raise DefinitionError(f"{where}: paths must be a list like [1, 2, 3, 4, 5]")
    else:
        paths = [merged.get("path", 5 if kind == "clones" else None)]
        if paths[0] is None:
            raise DefinitionError(f"{where}: path = 1..5 (the cumulative path /seg/<path>) is required")
    backend = _choice(merged.get("backend", "axis"), "backend", where, BACKENDS)
    op = _choice(merged.get("op", "ping"), "op", where, OPERATIONS)
    n = whole(merged.get("n", 0), "n", where, 0, 10_000_000)
    tiers = _tiers(defaults, entry, where)
    client_mode = _choice(merged.get("client_mode", "singleton"), "client_mode", where, CLIENT_MODES)
    pool_size = merged.get("pool_size")
    if pool_size is not None:
        pool_size = whole(pool_size, "pool_size", where, 1, MAX_POOL_SIZE)
    if client_mode == "pool" and pool_size is None:
        pool_size = int(KNOB_DEFAULTS["CLIENT_POOL_SIZE"])
    regime = merged.get("regime")
    if kind == "calibration":
        regime = _choice(regime, "regime", where, REGIMES)
    elif regime is not None:
        raise DefinitionError(f"{where}: regime is for calibration experiments only")
    demands, auto_wait = _demands(merged.get("demands", {}), where, auto_wait_us)
    knobs = {**_knobs(merged.get("knobs", {}), where), **_tiers_cpus(defaults, entry, where),
             **_placement(defaults, entry, where)}
    base_id = entry.get("id")
    if base_id is not None and (not isinstance(base_id, str) or not RUN_ID.match(base_id)):
        raise DefinitionError(f"{where}: id must be letters, digits, _ . - (got {base_id!r})")
    if base_id is None and "paths" not in entry:
        raise DefinitionError(f"{where}: id = \"...\" is required (it names the run's folder)")
    out = []
    for p in paths:
        p = whole(p, "path", where, 1, 5)
        if tiers["front"] < 1:
            raise DefinitionError(f"{where}: tiers.front must be >= 1 (every path enters through the front)")
        if p == 5 and (tiers["clone"] < 1 or tiers[backend] < 1):
            raise DefinitionError(f"{where}: path 5 calls the client tier and {backend}: "
                                  f"tiers.clone and tiers.{backend} must be >= 1")
        rid = (f"{base_id}-path{p}" if base_id else f"path{p}") if "paths" in entry else base_id
        label = entry.get("label") or rid
        if "paths" in entry and entry.get("label"):
            label = f"{entry['label']} /seg/{p}"
        out.append(RunSpec(id=rid, label=str(label), kind=kind, repeat=0, path=p, backend=backend,
                           op=op, n=n, tiers=tiers, client_mode=client_mode, pool_size=pool_size,
                           regime=regime, demands=demands, knobs=knobs, load=plan, entry=rid,
                           auto_wait=auto_wait))
    return out


def _check_knob_defaults(specs: list[RunSpec], where: str) -> None:
    """A knob set by some runs must be set by all: nothing would say what the others get."""
    keys = {k for s in specs for k in s.knobs}
    for k in sorted(keys):
        lacking = [s.entry for s in specs if k not in s.knobs]
        if lacking:
            raise DefinitionError(f"{where}: knobs.{k} is set by some runs but not by "
                                  f"{', '.join(lacking)}; set it in [defaults] knobs too")
